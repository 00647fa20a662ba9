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
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Notifications are counted where they are delivered (internal/notify).
var (
	notifications = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "stagecoach_notifications_total",
		Help: "Notifications by endpoint, event type and result: sent, retried (a delivery failed and will be tried again) or dropped (given up on, or the queue was full).",
	}, []string{"endpoint", "type", "result"})
	notifyConfigValid = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "stagecoach_notify_config_valid",
		Help: "1 when the notification endpoints (--notify-config) were read and valid, 0 when the Secret is missing or refused.",
	})
)

func init() {
	crmetrics.Registry.MustRegister(notifications, notifyConfigValid)
}

// ObserveNotification counts one delivery result of an event of type typ to endpoint.
func ObserveNotification(endpoint, typ, result string) {
	notifications.WithLabelValues(endpoint, typ, result).Inc()
}

// NotifyConfigValid records whether the notification endpoints could be read.
func NotifyConfigValid(ok bool) {
	v := 0.0
	if ok {
		v = 1
	}
	notifyConfigValid.Set(v)
}

// NotificationCount reads the count of one delivery result (for tests).
func NotificationCount(endpoint, typ, result string) float64 {
	var m dto.Metric
	if err := notifications.WithLabelValues(endpoint, typ, result).Write(&m); err != nil {
		return 0
	}
	return m.GetCounter().GetValue()
}
