package sandbox

import (
	"os"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig writes a self-contained kubeconfig (certificates embedded) for the admin user of
// the cluster whose apiserver listens on port.
func (l layout) writeKubeconfig(cluster string, port int) error {
	p := l.pki()
	ca, err := os.ReadFile(p.caCert())
	if err != nil {
		return err
	}
	cert, err := os.ReadFile(p.adminCert())
	if err != nil {
		return err
	}
	key, err := os.ReadFile(p.adminKey())
	if err != nil {
		return err
	}
	name := "sandbox-" + cluster
	cfg := clientcmdapi.Config{
		Clusters: map[string]*clientcmdapi.Cluster{name: {
			Server:                   "https://127.0.0.1:" + itoa(port),
			CertificateAuthorityData: ca,
		}},
		AuthInfos: map[string]*clientcmdapi.AuthInfo{name + "-admin": {
			ClientCertificateData: cert,
			ClientKeyData:         key,
		}},
		Contexts: map[string]*clientcmdapi.Context{name: {
			Cluster:  name,
			AuthInfo: name + "-admin",
		}},
		CurrentContext: name,
	}
	return clientcmd.WriteToFile(cfg, l.kubeconfig(cluster))
}

// restConfig loads a kubeconfig file written by writeKubeconfig.
func restConfig(path string) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 100, 200
	return cfg, nil
}
