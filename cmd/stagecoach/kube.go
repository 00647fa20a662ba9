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

package main

import (
	"fmt"

	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// kubeFlags find the management cluster as kubectl does: --kubeconfig, else KUBECONFIG, else
// ~/.kube/config, in the current context or --context.
type kubeFlags struct {
	kubeconfig, context string
}

func (k *kubeFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&k.kubeconfig, "kubeconfig", "", "kubeconfig of the management cluster (default: KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&k.context, "context", "", "kubeconfig context to use (default: the current context)")
}

// client connects to the management cluster with every Stagecoach API registered.
func (k *kubeFlags) client() (client.Client, *rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = k.kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: k.context}).ClientConfig()
	if err != nil {
		return nil, nil, fmt.Errorf("finding the management cluster: %w", err)
	}
	cfg.UserAgent = "stagecoach-cli/" + version
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, nil, fmt.Errorf("connecting to the management cluster %s: %w", cfg.Host, err)
	}
	return c, cfg, nil
}

// explain words an API error for the command line. A refusal is the API server's own message,
// which names the user, the verb and the resource the user may not use.
func explain(err error) error {
	if apierrors.IsForbidden(err) {
		return fmt.Errorf("permission denied: %w", err)
	}
	return err
}
