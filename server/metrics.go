package server

import (
	"runtime"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"ballot/archive"
	"ballot/server/ratelimit"
)

// metrics are the server's Prometheus metrics, in a registry of its own so
// that several servers (in tests) do not collide.
type metrics struct {
	registry    *prometheus.Registry
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	limitedVec  *prometheus.CounterVec
	reloads     *prometheus.CounterVec
	datasetInfo *prometheus.GaugeVec
	loadedAt    prometheus.Gauge
	failures    prometheus.Counter
	failedAt    prometheus.Gauge
	syncCycle   prometheus.Histogram

	// routes holds the series each route's requests touch, looked up
	// once rather than by label values on every request, by route name.
	routes map[string]*routeMetrics
}

// routeMetrics are the series of one route, named in metrics and logs.
type routeMetrics struct {
	name     string
	m        *metrics
	byStatus [len(commonStatuses)]prometheus.Counter
	duration prometheus.Observer
	limited  prometheus.Counter
}

// commonStatuses are the statuses the public API answers with.
var commonStatuses = [...]int{200, 204, 304, 400, 404, 405, 429, 500}

// observe counts one answer and its duration.
func (rt *routeMetrics) observe(status int, elapsed time.Duration) {
	rt.duration.Observe(elapsed.Seconds())
	for i, st := range commonStatuses {
		if st == status {
			rt.byStatus[i].Inc()
			return
		}
	}
	rt.m.requests.WithLabelValues(rt.name, strconv.Itoa(status)).Inc()
}

// route returns the series of a route of routeNames.
func (m *metrics) route(name string) *routeMetrics {
	rt, ok := m.routes[name]
	if !ok {
		panic("server: route " + name + " is not among the metrics' routes")
	}
	return rt
}

// newMetrics makes the metrics of s, with the series of each route of
// routeNames, a fixed set, so that no client can grow the metrics.
func newMetrics(s *Server, routeNames []string) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ballot_http_requests_total",
			Help: "Requests answered by the public API, by route and status.",
		}, []string{"route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "ballot_http_request_duration_seconds",
			Help:    "Time to answer a request of the public API, by route.",
			Buckets: []float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1},
		}, []string{"route"}),
		limitedVec: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ballot_rate_limited_requests_total",
			Help: "Requests refused with 429 because the client's quota was spent, by route.",
		}, []string{"route"}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ballot_dataset_reloads_total",
			Help: "Dataset reloads, by outcome: success, or failure (the previous dataset stays).",
		}, []string{"outcome"}),
		datasetInfo: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "ballot_dataset_info",
			Help: "The dataset being served: 1, labelled with its title, version (content hash) and published_at (its manifest's date, empty when it gives none); of an archive, the current election's title and published_at and the archive's version.",
		}, []string{"title", "version", "published_at"}),
		loadedAt: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "ballot_dataset_loaded_timestamp_seconds",
			Help: "When the dataset being served was loaded (the last successful load), in Unix seconds.",
		}),
		failures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ballot_dataset_reload_failures_total",
			Help: "Dataset reloads refused (the previous dataset stays served).",
		}),
		failedAt: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "ballot_dataset_reload_failure_timestamp_seconds",
			Help: "When the last reload was refused, in Unix seconds; 0 until one is.",
		}),
	}
	m.syncCycle = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "ballot_rate_limit_store_sync_cycle_seconds",
		Help:    "Time from the start of one rate-limit store sync to the end of the next that succeeded: other replicas' counts are at most two cycles old here.",
		Buckets: []float64{0.1, 0.101, 0.102, 0.105, 0.11, 0.125, 0.15, 0.2, 0.3, 0.5, 1, 2.5},
	})
	for _, outcome := range []string{"success", "failure"} {
		m.reloads.WithLabelValues(outcome)
	}
	m.addRoutes(routeNames)
	m.registry.MustRegister(m.requests, m.duration, m.limitedVec, m.reloads, m.datasetInfo, m.loadedAt,
		m.failures, m.failedAt, buildInfo(s.opts.Build))
	m.registry.MustRegister(limiterMetrics(s.limiter)...)
	m.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if s.limitSync != nil {
		m.registry.MustRegister(m.syncCycle)
		m.registry.MustRegister(storeMetrics(s.limitSync)...)
	}
	return m
}

// addRoutes makes the series of each route of routeNames.
func (m *metrics) addRoutes(routeNames []string) {
	m.routes = make(map[string]*routeMetrics, len(routeNames))
	for _, name := range routeNames {
		rt := &routeMetrics{name: name, m: m, duration: m.duration.WithLabelValues(name), limited: m.limitedVec.WithLabelValues(name)}
		// Every route and common status is exported from the start, at
		// zero: a series that appears late hides its first increase.
		for i, st := range commonStatuses {
			rt.byStatus[i] = m.requests.WithLabelValues(name, strconv.Itoa(st))
		}
		m.routes[name] = rt
	}
}

// buildInfo is the gauge that names the build serving.
func buildInfo(build Build) prometheus.Collector {
	if build.Version == "" {
		build.Version = "devel"
	}
	if build.Commit == "" {
		build.Commit = "unknown"
	}
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ballot_build_info",
		Help: "The build of ballot serving: 1, labelled with its module version, VCS commit and Go version.",
	}, []string{"version", "commit", "go_version"})
	g.WithLabelValues(build.Version, build.Commit, runtime.Version()).Set(1)
	return g
}

// limiterMetrics read the rate limiter's counters when scraped.
func limiterMetrics(l *ratelimit.Limiter) []prometheus.Collector {
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "ballot_rate_limit_tracked_clients",
			Help: "Rate-limit counters held in memory (one per client and endpoint).",
		}, func() float64 { return float64(l.Len()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "ballot_rate_limit_evictions_total",
			Help: "Rate-limit counters dropped before their window ended because max_tracked_clients was reached.",
		}, func() float64 { return float64(l.Evictions()) }),
	}
}

// storeMetrics read the rate-limit store's sync when scraped.
func storeMetrics(sync *ratelimit.Sync) []prometheus.Collector {
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "ballot_rate_limit_store_up",
			Help: "1 while the rate-limit store answers and counts are shared, 0 while this process counts alone.",
		}, func() float64 {
			if sync.Up() {
				return 1
			}
			return 0
		}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "ballot_rate_limit_store_errors_total",
			Help: "Rate-limit store syncs (and the start-up check) that failed or timed out.",
		}, func() float64 { return float64(sync.Errors()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "ballot_rate_limit_store_syncs_total",
			Help: "Rate-limit store syncs that succeeded.",
		}, func() float64 { return float64(sync.Syncs()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "ballot_rate_limit_store_keys_total",
			Help: "Counts of a client and endpoint sent to the rate-limit store.",
		}, func() float64 { return float64(sync.Keys()) }),
	}
}

// archiveChanged records the archive a served from at: its current
// election's title and date of publication, and the archive's version,
// which changes with any byte of any election (a dataset's own for a
// dataset directory).
func (m *metrics) archiveChanged(a *archive.Archive, at time.Time) {
	m.datasetInfo.Reset()
	ds := a.Current().Dataset()
	published := ""
	if p := publishedAt(ds.Manifest); p != nil {
		published = *p
	}
	m.datasetInfo.WithLabelValues(ds.Manifest.Title, a.Version, published).Set(1)
	m.loadedAt.Set(float64(at.UnixNano()) / 1e9)
}

// reloadFailed counts a refused reload.
func (m *metrics) reloadFailed(at time.Time) {
	m.reloads.WithLabelValues("failure").Inc()
	m.failures.Inc()
	m.failedAt.Set(float64(at.UnixNano()) / 1e9)
}
