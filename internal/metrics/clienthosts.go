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

package metrics

import (
	"context"
	"net/url"

	clientmetrics "k8s.io/client-go/tools/metrics"
)

// ManagedClustersHost is the host under which rest_client_requests_total counts the requests
// to managed clusters.
const ManagedClustersHost = "managed-clusters"

// CountManagedClustersAsOne makes client-go's request counter, rest_client_requests_total,
// count the requests to every host but the management cluster's (its URL, management) under
// the one host ManagedClustersHost. The counter is labelled by host: a fleet of 20,000 clusters
// would otherwise make 20,000 series of it for Prometheus to scrape and the controller to keep.
// Call it once, before the first request.
func CountManagedClustersAsOne(management string) {
	host := management
	if u, err := url.Parse(management); err == nil && u.Host != "" {
		host = u.Host
	}
	clientmetrics.RequestResult = hostCollapsing{next: clientmetrics.RequestResult, management: host}
}

type hostCollapsing struct {
	next       clientmetrics.ResultMetric
	management string
}

func (h hostCollapsing) Increment(ctx context.Context, code, method, host string) {
	if host != h.management {
		host = ManagedClustersHost
	}
	h.next.Increment(ctx, code, method, host)
}
