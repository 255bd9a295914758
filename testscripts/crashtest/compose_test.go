package crashtest

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/storage/pgtest"
)

// composeFile is what the test reads of a compose file.
type composeFile struct {
	Services map[string]struct {
		Command     string            `yaml:"command"`
		Environment map[string]string `yaml:"environment"`
		Volumes     []string          `yaml:"volumes"`
		DependsOn   map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
	} `yaml:"services"`
}

// TestPostgresComposeExample runs the services of docs/examples/compose.yaml as the file gives
// them, without a container runtime: each service's command through sh, with its environment,
// and the binary the file mounts as /usr/bin/timbra first on PATH; only what a container would
// provide is replaced (the compose database's URL by a test schema's, the /keys volume by a
// folder, the container's port by a free loopback one). init runs twice (the second finds the
// master key and does nothing), then node1 and node2: both answer /healthz naming PostgreSQL
// and two different nodes, and the credentials init printed work on both.
func TestPostgresComposeExample(t *testing.T) {
	url := pgtest.URL(t)
	bin := timbraBinary(t)
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "examples", "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var f composeFile
	if err := yaml.Unmarshal(raw, &f); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	const composeURL = "postgres://timbra@db:5432/timbra?sslmode=disable"
	keys := t.TempDir()
	replace := strings.NewReplacer(composeURL, url, "/keys/", keys+"/").Replace
	service := func(name string) (command string, env []string) {
		s, ok := f.Services[name]
		if !ok {
			t.Fatalf("compose.yaml has no service %s", name)
		}
		if !slices.Contains(s.Volumes, "./timbra:/usr/bin/timbra:ro") {
			t.Fatalf("service %s does not run the binary built beside the file: volumes %v", name, s.Volumes)
		}
		env = childEnv("PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"))
		for k, v := range s.Environment {
			env = append(env, k+"="+replace(v))
		}
		return replace(s.Command), env
	}
	for _, node := range []string{"node1", "node2"} {
		if c := f.Services[node].DependsOn["init"].Condition; c != "service_completed_successfully" {
			t.Fatalf("%s starts after init with condition %q", node, c)
		}
	}
	if !strings.Contains(string(raw), composeURL) {
		t.Fatalf("compose.yaml no longer names the database %s", composeURL)
	}

	// init, twice
	command, env := service("init")
	run := func() []byte {
		cmd := exec.Command("sh", "-c", command)
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("init (%s): %v\n%s", command, err, out)
		}
		return out
	}
	var creds api.Credentials
	if out := run(); json.Unmarshal(out, &creds) != nil || creds.TenantKey == "" || creds.APIKey == "" {
		t.Fatalf("init printed %d bytes, not the first credentials as JSON", len(out)) // not shown: they hold a key
	}
	if out := run(); len(out) != 0 {
		t.Fatalf("init again printed %q, want nothing (the master key is there)", out)
	}

	// the nodes
	nodes := map[string]string{}
	for _, name := range []string{"node1", "node2"} {
		command, env := service(name)
		port := freePort(t)
		if !strings.Contains(command, "0.0.0.0:8080") {
			t.Fatalf("%s's command %q does not listen on the container's port 8080", name, command)
		}
		cmd := exec.Command("sh", "-c", "exec "+strings.Replace(command, "0.0.0.0:8080", "127.0.0.1:"+port, 1))
		cmd.Env = env
		p := startProc(t, cmd, filepath.Join(keys, name+".log"))
		t.Cleanup(func() { p.stop(t) })
		p.base = "http://127.0.0.1:" + port
		h := waitHealthy(t, p, name)
		if h.Database != "postgresql" || h.Node == "" {
			t.Fatalf("%s's health: %+v", name, h)
		}
		nodes[h.Node] = name
		people, err := apiClient(p.base, creds, http.DefaultClient).ListPeople(context.Background(), 1, 10)
		if err != nil || people.TotalCount != 1 {
			t.Fatalf("%s lists the people of init's tenant: %+v, %v", name, people, err)
		}
	}
	if len(nodes) != 2 {
		t.Fatalf("the two nodes have one name: %v", nodes)
	}
}

// freePort is a loopback port free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// waitHealthy waits, at most 30 s, for the server to answer /healthz, and returns its answer.
func waitHealthy(t *testing.T, p *proc, name string) api.Health {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		h, err := apiClient(p.base, api.Credentials{}, http.DefaultClient).Health(context.Background())
		if err == nil {
			return h
		}
		select {
		case <-p.done:
			t.Fatalf("%s exited before answering: %v\n%s", name, p.err, p.log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer within 30 s: %v\n%s", name, err, p.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
