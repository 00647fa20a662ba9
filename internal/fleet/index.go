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

package fleet

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// KubeconfigSecretField is the name of a field index over SveltosClusters or MemberClusters: the
// kubeconfig Secret each uses, as "<namespace>/<name>". Controllers watching Secrets register it
// with KubeconfigSecretIndexKeys to find the clusters a changed Secret belongs to.
const KubeconfigSecretField = "stagecoach.dev/kubeconfig-secret"

// KubeconfigSecretIndexKeys is the client.IndexerFunc of KubeconfigSecretField: the kubeconfig
// Secret of a SveltosCluster or a MemberCluster, if it names one.
func KubeconfigSecretIndexKeys(obj client.Object) []string {
	var (
		loc KubeconfigSecret
		err error
	)
	switch c := obj.(type) {
	case *libv1beta1.SveltosCluster:
		loc, err = SveltosClusterKubeconfig(c)
	case *clusterv1beta1.MemberCluster:
		loc, err = MemberClusterKubeconfig(c)
	default:
		return nil
	}
	if err != nil {
		return nil
	}
	return []string{loc.String()}
}
