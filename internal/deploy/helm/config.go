/*
Copyright 2026 The Stagecoach Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package helm

import (
	"io"

	"github.com/go-logr/logr"
	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/kube"
	"helm.sh/helm/v4/pkg/storage"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// remoteGetter is the genericclioptions.RESTClientGetter Helm's kube client needs, built from
// a managed cluster's connection instead of a kubeconfig file. It reuses the Remote's cached
// discovery and REST mapper so that each Helm action does not rediscover the cluster's APIs.
type remoteGetter struct {
	config    *rest.Config
	namespace string
	discovery discovery.CachedDiscoveryInterface
	mapper    meta.RESTMapper
}

func newRemoteGetter(remote *fleet.Remote, namespace string) (*remoteGetter, error) {
	g := &remoteGetter{config: remote.Config, namespace: namespace, discovery: remote.Discovery}
	if g.discovery == nil {
		dc, err := discovery.NewDiscoveryClientForConfig(remote.Config)
		if err != nil {
			return nil, err
		}
		g.discovery = memory.NewMemCacheClient(dc)
	}
	if remote.Mapper != nil {
		g.mapper = remote.Mapper
	} else {
		g.mapper = restmapper.NewDeferredDiscoveryRESTMapper(g.discovery)
	}
	return g, nil
}

// ToRESTConfig returns a copy: Helm's factory sets fields on the config it gets.
func (g *remoteGetter) ToRESTConfig() (*rest.Config, error) { return rest.CopyConfig(g.config), nil }

func (g *remoteGetter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	return g.discovery, nil
}

func (g *remoteGetter) ToRESTMapper() (meta.RESTMapper, error) { return g.mapper, nil }

// ToRawKubeConfigLoader only serves the namespace: there is no kubeconfig file behind a Remote.
func (g *remoteGetter) ToRawKubeConfigLoader() clientcmd.ClientConfig { return namespaceOnly{g} }

type namespaceOnly struct{ g *remoteGetter }

func (n namespaceOnly) RawConfig() (clientcmdapi.Config, error) {
	return *clientcmdapi.NewConfig(), nil
}
func (n namespaceOnly) ClientConfig() (*rest.Config, error) { return n.g.ToRESTConfig() }
func (n namespaceOnly) Namespace() (string, bool, error)    { return n.g.namespace, true, nil }
func (n namespaceOnly) ConfigAccess() clientcmd.ConfigAccess {
	return clientcmd.NewDefaultPathOptions()
}

// actionConfig builds the Helm action configuration for one operation on one release: a fresh
// one per call, since Helm caches capabilities in it and locks it per action. Releases are
// stored as Secrets on the managed cluster, in the release namespace, exactly where the helm
// CLI looks for them, so `helm list -n NS` on that cluster shows what Stagecoach did.
func actionConfig(remote *fleet.Remote, namespace string, log logr.Logger) (*action.Configuration, error) {
	getter, err := newRemoteGetter(remote, namespace)
	if err != nil {
		return nil, err
	}
	handler := logr.ToSlogHandler(log)
	cfg := action.NewConfiguration(action.ConfigurationSetLogger(handler))
	kc := kube.New(getter)
	kc.Factory = &serverValidatedFactory{Factory: kc.Factory, discovery: getter.discovery}
	kc.Namespace = namespace
	kc.SetLogger(handler)
	secrets := newReleaseStore(remote.Core.Secrets(namespace))
	secrets.SetLogger(handler)
	cfg.RESTClientGetter = getter
	cfg.KubeClient = kc
	cfg.Releases = storage.Init(secrets)
	cfg.Releases.SetLogger(handler)
	cfg.HookOutputFunc = func(_, _, _ string) io.Writer { return io.Discard }
	return cfg, nil
}
