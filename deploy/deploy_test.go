// Package deploy_test checks the deployment files in deploy/ and the
// Dockerfile against what the README promises of them: well-formed, and
// with the probes, ports, arguments, volumes and restrictions it names.
// systemd-analyze verify (in .ci/systemd) checks the unit's syntax; this
// checks its choices.
package deploy_test

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"

	"ballot/commands"
)

type meta struct {
	Name   string            `yaml:"name"`
	Labels map[string]string `yaml:"labels"`
}

type httpProbe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
		Port string `yaml:"port"`
	} `yaml:"httpGet"`
}

type container struct {
	Name  string   `yaml:"name"`
	Image string   `yaml:"image"`
	Args  []string `yaml:"args"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	ReadinessProbe *httpProbe `yaml:"readinessProbe"`
	LivenessProbe  *httpProbe `yaml:"livenessProbe"`
	Resources      struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	SecurityContext struct {
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
		Capabilities             struct {
			Drop []string `yaml:"drop"`
		} `yaml:"capabilities"`
	} `yaml:"securityContext"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
		ReadOnly  bool   `yaml:"readOnly"`
	} `yaml:"volumeMounts"`
}

type deployment struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   meta   `yaml:"metadata"`
	Spec       struct {
		Replicas int `yaml:"replicas"`
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		Template struct {
			Metadata meta `yaml:"metadata"`
			Spec     struct {
				SecurityContext struct {
					RunAsNonRoot *bool `yaml:"runAsNonRoot"`
					RunAsUser    int   `yaml:"runAsUser"`
				} `yaml:"securityContext"`
				TerminationGracePeriodSeconds int         `yaml:"terminationGracePeriodSeconds"`
				Containers                    []container `yaml:"containers"`
				Volumes                       []struct {
					Name      string `yaml:"name"`
					ConfigMap *struct {
						Name string `yaml:"name"`
					} `yaml:"configMap"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type service struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   meta   `yaml:"metadata"`
	Spec       struct {
		Selector map[string]string `yaml:"selector"`
		Ports    []struct {
			Port       int    `yaml:"port"`
			TargetPort string `yaml:"targetPort"`
		} `yaml:"ports"`
	} `yaml:"spec"`
}

type configMap struct {
	APIVersion string            `yaml:"apiVersion"`
	Kind       string            `yaml:"kind"`
	Metadata   meta              `yaml:"metadata"`
	Data       map[string]string `yaml:"data"`
}

// decodeYAML decodes one manifest, refusing a file that is not YAML or
// holds more than one document.
func decodeYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// argAfter returns the argument after flag, or "" when flag is absent.
func argAfter(args []string, flag string) string {
	i := slices.Index(args, flag)
	if i < 0 || i+1 == len(args) {
		return ""
	}
	return args[i+1]
}

// TestKubernetesManifests checks the Deployment, the Service and the
// configuration's ConfigMap.
func TestKubernetesManifests(t *testing.T) {
	var d deployment
	var svc service
	var cm configMap
	decodeYAML(t, "kubernetes/deployment.yaml", &d)
	decodeYAML(t, "kubernetes/service.yaml", &svc)
	decodeYAML(t, "kubernetes/configmap.yaml", &cm)

	if d.APIVersion != "apps/v1" || d.Kind != "Deployment" || svc.APIVersion != "v1" || svc.Kind != "Service" || cm.APIVersion != "v1" || cm.Kind != "ConfigMap" {
		t.Fatalf("kinds: %s %s, %s %s, %s %s; want apps/v1 Deployment, v1 Service, v1 ConfigMap", d.APIVersion, d.Kind, svc.APIVersion, svc.Kind, cm.APIVersion, cm.Kind)
	}
	pod := d.Spec.Template
	for k, v := range d.Spec.Selector.MatchLabels {
		if pod.Metadata.Labels[k] != v {
			t.Errorf("the Deployment's selector %s=%s does not select its own pods (labels %v)", k, v, pod.Metadata.Labels)
		}
	}
	if len(d.Spec.Selector.MatchLabels) == 0 {
		t.Error("the Deployment has no selector")
	}
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]

	// Arguments: serve, with --watch on the dataset's volume.
	if len(c.Args) == 0 || c.Args[0] != "serve" || !slices.Contains(c.Args, "--watch") {
		t.Errorf("args %q, want serve … --watch", c.Args)
	}
	if got := argAfter(c.Args, "--admin-listen"); got != "0.0.0.0:9090" {
		t.Errorf("--admin-listen %q, want 0.0.0.0:9090: the kubelet probes it from outside the container", got)
	}
	ports := map[string]int{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["http"] != 8080 || ports["admin"] != 9090 {
		t.Errorf("container ports %v, want http 8080 and admin 9090", ports)
	}

	// Volumes: the dataset and the configuration, each from a ConfigMap,
	// mounted read-only where the arguments point.
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		if !m.ReadOnly {
			t.Errorf("volume %s is mounted writable", m.Name)
		}
		mounts[m.MountPath] = m.Name
	}
	configMaps := map[string]string{}
	for _, v := range pod.Spec.Volumes {
		if v.ConfigMap != nil {
			configMaps[v.Name] = v.ConfigMap.Name
		}
	}
	dataDir := argAfter(c.Args, "--data")
	if vol := mounts[dataDir]; dataDir == "" || configMaps[vol] != "ballot-dataset" {
		t.Errorf("--data %q is not the mount of the ConfigMap ballot-dataset (mounts %v, ConfigMap volumes %v)", dataDir, mounts, configMaps)
	}
	configFile := argAfter(c.Args, "--config")
	if vol := mounts[filepath.Dir(configFile)]; configMaps[vol] != cm.Metadata.Name || cm.Data[filepath.Base(configFile)] == "" {
		t.Errorf("--config %q is not a key of the ConfigMap %s mounted at %s (mounts %v)", configFile, cm.Metadata.Name, filepath.Dir(configFile), mounts)
	}

	// Probes on the admin listener.
	for _, p := range []struct {
		name  string
		probe *httpProbe
		path  string
	}{{"readiness", c.ReadinessProbe, "/readyz"}, {"liveness", c.LivenessProbe, "/healthz"}} {
		if p.probe == nil || p.probe.HTTPGet.Path != p.path || ports[p.probe.HTTPGet.Port] != 9090 {
			t.Errorf("%s probe %+v, want GET %s on the admin port", p.name, p.probe, p.path)
		}
	}

	for _, res := range []string{"cpu", "memory"} {
		if c.Resources.Requests[res] == "" || c.Resources.Limits[res] == "" {
			t.Errorf("resources %+v: want a request and a limit of %s", c.Resources, res)
		}
	}
	sc, psc := c.SecurityContext, pod.Spec.SecurityContext
	if psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == 0 {
		t.Errorf("pod securityContext %+v, want runAsNonRoot and a user other than 0", psc)
	}
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || !slices.Equal(sc.Capabilities.Drop, []string{"ALL"}) {
		t.Errorf("container securityContext %+v, want a read-only root file system, no privilege escalation, every capability dropped", sc)
	}
	// The kubelet's SIGKILL must not come before ballot's own deadline.
	if grace := time.Duration(pod.Spec.TerminationGracePeriodSeconds) * time.Second; grace <= time.Duration(commands.DefaultConfig().ShutdownTimeout) {
		t.Errorf("terminationGracePeriodSeconds %v is not above shutdown_timeout", grace)
	}

	// The Service: port 80 to the container's 8080, on the Deployment's pods.
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 80 || ports[svc.Spec.Ports[0].TargetPort] != 8080 {
		t.Errorf("Service ports %+v, want 80 to the container's http port 8080", svc.Spec.Ports)
	}
	for k, v := range svc.Spec.Selector {
		if pod.Metadata.Labels[k] != v {
			t.Errorf("the Service's selector %s=%s does not select the Deployment's pods", k, v)
		}
	}

	// The configuration in the ConfigMap is one serve accepts.
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(cm.Data["config.toml"]), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := commands.LoadConfig(path, true); err != nil {
		t.Errorf("the ConfigMap's config.toml: %v", err)
	}
}

// TestSystemdUnit checks the hardening and the reload of
// systemd/ballot.service.
func TestSystemdUnit(t *testing.T) {
	b, err := os.ReadFile("systemd/ballot.service")
	if err != nil {
		t.Fatal(err)
	}
	service := map[string][]string{}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			section = line
		case section == "[Service]":
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("not key=value in [Service]: %q", line)
			}
			service[k] = append(service[k], v)
		}
	}
	for k, want := range map[string]string{
		"DynamicUser":           "yes",
		"ProtectSystem":         "strict",
		"ProtectHome":           "yes",
		"PrivateTmp":            "yes",
		"NoNewPrivileges":       "yes",
		"CapabilityBoundingSet": "",
		"ExecReload":            "/bin/kill -HUP $MAINPID",
		"Restart":               "on-failure",
		"ExecStart":             "/usr/local/bin/ballot serve --config /etc/ballot/config.toml",
		"ReadOnlyPaths":         "/srv/ballot /etc/ballot",
	} {
		if got := service[k]; !slices.Equal(got, []string{want}) {
			t.Errorf("[Service] %s=%q, want %q", k, got, want)
		}
	}
}

// TestDockerfile checks the image's promises: a static binary, a user that
// is not root, the two ports, and the admin listener reachable from outside
// the container.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for _, want := range []string{
		"RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/ballot .",
		"FROM gcr.io/distroless/static-debian12:nonroot",
		"USER nonroot:nonroot",
		"ENV BALLOT_ADMIN_LISTEN=0.0.0.0:9090",
		"EXPOSE 8080 9090",
		`ENTRYPOINT ["/usr/local/bin/ballot"]`,
	} {
		if !slices.Contains(lines, want) {
			t.Errorf("the Dockerfile has no line %q", want)
		}
	}
}
