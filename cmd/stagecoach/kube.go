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
	"cmp"
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/view"
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

// Lists of what a NAME argument can name, in a namespace where the kind has one.
func promotionList(string) client.ObjectList { return &configv1beta1.ClusterPromotionList{} }
func profileList(namespace string) client.ObjectList {
	return view.ProfileFamily(namespace).NewProfileList()
}
func runList(namespace string) client.ObjectList {
	return view.RunFamily(namespace).NewUpdateRunList()
}

// completeNames completes a command's NAME argument, for the shell, with the names of the
// objects newList lists in the management cluster, in the namespace of the -n flag if any.
func (k *kubeFlags) completeNames(newList func(namespace string) client.ObjectList, namespace *string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ns := ""
		if namespace != nil {
			ns = *namespace
		}
		c, _, err := k.client()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
		}
		list := newList(ns)
		if err := c.List(cmp.Or(cmd.Context(), context.Background()), list, client.InNamespace(ns)); err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
		}
		var names []cobra.Completion
		_ = meta.EachListItem(list, func(obj runtime.Object) error {
			names = append(names, obj.(client.Object).GetName())
			return nil
		})
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}

// act is the RunE of a command that makes one change of internal/operate: it runs do with the
// kubeconfig's client and prints what was done, or says why not.
func (k *kubeFlags) act(do func(ctx context.Context, c client.Client, args []string) (string, error)) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		c, _, err := k.client()
		if err != nil {
			return err
		}
		msg, err := do(cmd.Context(), c, args)
		if err != nil {
			return explain(err)
		}
		fmt.Fprintln(cmd.OutOrStdout(), msg)
		return nil
	}
}
