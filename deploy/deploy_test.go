// Package deploy_test checks the deployment files in deploy/ and the
// Dockerfile against what the manual (docs/OPERATING.md) promises of them: well-formed, and
// with the probes, ports, arguments, volumes and restrictions it names.
// systemd-analyze verify (in .ci/systemd) checks the unit's syntax; this
// checks its choices.
package deploy_test

import (
	"bufio"
	"bytes"
	"io"
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
	InitialDelaySeconds int `yaml:"initialDelaySeconds"`
	PeriodSeconds       int `yaml:"periodSeconds"`
	TimeoutSeconds      int `yaml:"timeoutSeconds"`
	FailureThreshold    int `yaml:"failureThreshold"`
}

type container struct {
	Name            string   `yaml:"name"`
	Image           string   `yaml:"image"`
	ImagePullPolicy string   `yaml:"imagePullPolicy"`
	Args            []string `yaml:"args"`
	Ports           []struct {
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
				AutomountServiceAccountToken *bool `yaml:"automountServiceAccountToken"`
				SecurityContext              struct {
					RunAsNonRoot   *bool `yaml:"runAsNonRoot"`
					RunAsUser      int   `yaml:"runAsUser"`
					RunAsGroup     int   `yaml:"runAsGroup"`
					SeccompProfile struct {
						Type string `yaml:"type"`
					} `yaml:"seccompProfile"`
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
			Name       string `yaml:"name"`
			Port       int    `yaml:"port"`
			TargetPort string `yaml:"targetPort"`
		} `yaml:"ports"`
	} `yaml:"spec"`
}

type ingress struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   meta   `yaml:"metadata"`
	Spec       struct {
		IngressClassName string `yaml:"ingressClassName"`
		TLS              []struct {
			Hosts      []string `yaml:"hosts"`
			SecretName string   `yaml:"secretName"`
		} `yaml:"tls"`
		Rules []struct {
			Host string `yaml:"host"`
			HTTP struct {
				Paths []struct {
					Path     string `yaml:"path"`
					PathType string `yaml:"pathType"`
					Backend  struct {
						Service struct {
							Name string `yaml:"name"`
							Port struct {
								Name   string `yaml:"name"`
								Number int    `yaml:"number"`
							} `yaml:"port"`
						} `yaml:"service"`
					} `yaml:"backend"`
				} `yaml:"paths"`
			} `yaml:"http"`
		} `yaml:"rules"`
	} `yaml:"spec"`
}

type podDisruptionBudget struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   meta   `yaml:"metadata"`
	Spec       struct {
		MinAvailable   *int `yaml:"minAvailable"`
		MaxUnavailable *int `yaml:"maxUnavailable"`
		Selector       struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
	} `yaml:"spec"`
}

type configMap struct {
	APIVersion string            `yaml:"apiVersion"`
	Kind       string            `yaml:"kind"`
	Metadata   meta              `yaml:"metadata"`
	Data       map[string]string `yaml:"data"`
}

// decodeYAML decodes one manifest, refusing a file that is not YAML, holds
// more than one document, or has a field the type above does not know (a
// misspelt or misplaced key, which Kubernetes would reject or ignore).
func decodeYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var more any
	if err := dec.Decode(&more); err != io.EOF {
		t.Fatalf("%s: more than one document (%v)", path, err)
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
	}{{"readiness", c.ReadinessProbe, "/readyz"}, {"liveness", c.LivenessProbe, "/livez"}} {
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

	// The image: a registry to pull from, a pinned tag, and a pull policy.
	checkImage(t, c.Image, c.ImagePullPolicy)

	// The Ingress: HTTPS for a host, all paths to the Service's port.
	var ing ingress
	decodeYAML(t, "kubernetes/ingress.yaml", &ing)
	if ing.APIVersion != "networking.k8s.io/v1" || ing.Kind != "Ingress" {
		t.Errorf("ingress.yaml: %s %s, want networking.k8s.io/v1 Ingress", ing.APIVersion, ing.Kind)
	}
	if len(ing.Spec.Rules) != 1 || len(ing.Spec.Rules[0].HTTP.Paths) != 1 {
		t.Fatalf("Ingress rules %+v, want one host with one path", ing.Spec.Rules)
	}
	rule, path0 := ing.Spec.Rules[0], ing.Spec.Rules[0].HTTP.Paths[0]
	backend := path0.Backend.Service
	if path0.Path != "/" || path0.PathType != "Prefix" || backend.Name != svc.Metadata.Name || backend.Port.Name != svc.Spec.Ports[0].Name || backend.Port.Name == "" {
		t.Errorf("Ingress path %+v, want / (Prefix) to the Service %s's port %q", path0, svc.Metadata.Name, svc.Spec.Ports[0].Name)
	}
	if len(ing.Spec.TLS) != 1 || !slices.Equal(ing.Spec.TLS[0].Hosts, []string{rule.Host}) || ing.Spec.TLS[0].SecretName == "" {
		t.Errorf("Ingress TLS %+v, want the host %s with a Secret", ing.Spec.TLS, rule.Host)
	}
	if want := "public_url = \"https://" + rule.Host + "\""; !strings.Contains(cm.Data["config.toml"], want) {
		t.Errorf("the configuration has no %s: the catalogue's URLs would not lead to the Ingress's host", want)
	}

	// The PodDisruptionBudget: a drain leaves at least one replica serving.
	var pdb podDisruptionBudget
	decodeYAML(t, "kubernetes/poddisruptionbudget.yaml", &pdb)
	if pdb.APIVersion != "policy/v1" || pdb.Kind != "PodDisruptionBudget" {
		t.Errorf("poddisruptionbudget.yaml: %s %s, want policy/v1 PodDisruptionBudget", pdb.APIVersion, pdb.Kind)
	}
	if pdb.Spec.MinAvailable == nil || *pdb.Spec.MinAvailable < 1 || *pdb.Spec.MinAvailable >= d.Spec.Replicas || pdb.Spec.MaxUnavailable != nil {
		t.Errorf("PodDisruptionBudget %+v, want minAvailable from 1 to %d (below the replicas, or no drain could proceed)", pdb.Spec, d.Spec.Replicas-1)
	}
	if len(pdb.Spec.Selector.MatchLabels) == 0 {
		t.Error("the PodDisruptionBudget has no selector")
	}
	for k, v := range pdb.Spec.Selector.MatchLabels {
		if pod.Metadata.Labels[k] != v {
			t.Errorf("the PodDisruptionBudget's selector %s=%s does not select the Deployment's pods", k, v)
		}
	}

	// Every manifest in the directory is one checked here.
	files, _ := filepath.Glob("kubernetes/*")
	want := []string{"kubernetes/configmap.yaml", "kubernetes/deployment.yaml", "kubernetes/ingress.yaml", "kubernetes/poddisruptionbudget.yaml", "kubernetes/service.yaml"}
	if !slices.Equal(files, want) {
		t.Errorf("deploy/kubernetes holds %q; this test checks %q", files, want)
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

// checkImage checks an image reference: a registry host before the first
// slash (a name with a dot or a port, or localhost), a tag that names a
// release (not latest, nor none, which means latest), and a pull policy.
func checkImage(t *testing.T, image, pullPolicy string) {
	t.Helper()
	host, rest, ok := strings.Cut(image, "/")
	if !ok || !(strings.ContainsAny(host, ".:") || host == "localhost") {
		t.Errorf("image %q names no registry: Kubernetes would pull it from Docker Hub", image)
	}
	_, tag, ok := strings.Cut(rest, ":")
	if !ok || tag == "" || tag == "latest" || strings.Contains(tag, "/") {
		t.Errorf("image %q has no pinned tag (latest, or none, changes under the replicas)", image)
	}
	if pullPolicy != "IfNotPresent" && pullPolicy != "Always" {
		t.Errorf("imagePullPolicy %q, want IfNotPresent (a pinned tag) or Always", pullPolicy)
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

// TestDockerRecipesMountTheLinksDirectory: docs/OPERATING.md's and the
// Dockerfile's docker run recipes mount the directory that holds the
// dataset's symbolic link and serve the link inside it, since a bind mount
// of the link itself is resolved once, when the container starts, and
// would never see the link swapped to a new version. The manual says why.
func TestDockerRecipesMountTheLinksDirectory(t *testing.T) {
	manual, err := os.ReadFile("../docs/OPERATING.md")
	if err != nil {
		t.Fatal(err)
	}
	dockerfile, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	recipes := 0
	for name, b := range map[string][]byte{"docs/OPERATING.md": manual, "Dockerfile": dockerfile} {
		for line := range strings.Lines(string(b)) {
			fields := strings.Fields(line)
			volume := argAfter(fields, "-v")
			if !strings.Contains(line, "docker run") || volume == "" {
				continue
			}
			recipes++
			parts := strings.Split(volume, ":")
			data := argAfter(fields, "--data")
			if len(parts) < 2 || data == "" {
				t.Errorf("%s: %q: want -v HOST:CONTAINER[:ro] and --data", name, strings.TrimSpace(line))
				continue
			}
			host, inside := parts[0], parts[1]
			if !strings.HasPrefix(data, strings.TrimSuffix(inside, "/")+"/") {
				t.Errorf("%s: %q: --data %s is not a link inside the mounted directory %s: a mounted link is resolved once, at the container's start", name, strings.TrimSpace(line), data, inside)
			}
			if filepath.Base(host) == "current" {
				t.Errorf("%s: %q mounts the link %s itself", name, strings.TrimSpace(line), host)
			}
			if !slices.Contains(fields, "--watch") {
				t.Errorf("%s: %q: want --watch, so the swap is served", name, strings.TrimSpace(line))
			}
		}
	}
	if recipes < 2 {
		t.Errorf("%d docker run recipes with a volume, want docs/OPERATING.md's and the Dockerfile's", recipes)
	}
	const why = "a bind\n  mount of a symbolic link is resolved once, when the container starts"
	if !bytes.Contains(manual, []byte("Mount the directory that holds the `current` link, not the link: "+why)) {
		t.Errorf("docs/OPERATING.md does not say why the recipe mounts the link's directory (%q)", why)
	}
}
