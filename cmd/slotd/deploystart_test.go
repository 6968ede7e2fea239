package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/slotd/slotd/internal/pgtest"
	"github.com/slotd/slotd/internal/testkit"
	"github.com/slotd/slotd/sqlite"
)

// The shipped deploy files are started here as they say: the binary is
// this test binary (SLOTD_TEST_RUN_MAIN=1), run with the file's command
// line, environment, credentials and working directory. Only the listen
// addresses are moved to free loopback ports, as the operator's own
// settings (slotd.env, a pod's port) would; everything else is the file's.

// slotdEnv is the environment of a process started as a deploy file says:
// this process's minus every SLOTD_ variable (the file gives those), plus
// extra.
func slotdEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SLOTD_") {
			env = append(env, kv)
		}
	}
	return append(append(env, "SLOTD_TEST_RUN_MAIN=1"), extra...)
}

// binary replaces the deployed binary's path in argv with this test binary.
func binary(t *testing.T, argv []string) []string {
	t.Helper()
	if len(argv) == 0 || filepath.Base(argv[0]) != "slotd" {
		t.Fatalf("command %q does not run slotd", argv)
	}
	return append([]string{os.Args[0]}, argv[1:]...)
}

// runTo runs argv to its end in dir with env, failing the test unless it
// exits 0; it returns the standard output.
func runTo(t *testing.T, dir string, env, argv []string) string {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	var errb syncBuffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%q: %v\n%s%s", argv[1:], err, out, errb.String())
	}
	return string(out)
}

// startIn starts argv (a serve) in dir with env and waits until it listens.
// listeningJSON finds the URL in the start line of a JSON log (the
// Kubernetes manifest's SLOTD_LOG_FORMAT).
var listeningJSON = regexp.MustCompile(`"msg":"slotd listening","url":"(http://[0-9.:]+)"`)

func startIn(t *testing.T, dir string, env, argv []string) *instance {
	t.Helper()
	in := &instance{logs: &syncBuffer{}}
	in.cmd = exec.Command(argv[0], argv[1:]...)
	in.cmd.Dir, in.cmd.Env = dir, env
	in.cmd.Stdout = io.Discard
	in.cmd.Stderr = in.logs
	if err := in.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if in.cmd.ProcessState == nil {
			_ = in.cmd.Process.Kill()
			_ = in.cmd.Wait()
		}
	})
	if !testkit.Poll(60*time.Second, func() bool {
		logs := in.logs.String()
		for _, re := range []*regexp.Regexp{listening, listeningJSON} {
			if m := re.FindStringSubmatch(logs); m != nil {
				in.url = m[1]
				return true
			}
		}
		return in.cmd.ProcessState != nil
	}) || in.url == "" {
		t.Fatalf("%q did not start:\n%s", argv[1:], in.logs.String())
	}
	return in
}

// status GETs u and returns the status code (0 when it could not ask).
func status(u string) int {
	r, err := http.Get(u)
	if err != nil {
		return 0
	}
	r.Body.Close()
	return r.StatusCode
}

func waitReady(t *testing.T, in *instance) {
	t.Helper()
	testkit.Eventually(t, "GET /readyz answering 200", 60*time.Second, func() bool { return status(in.url+"/readyz") == 200 })
}

// initOutput is what `slotd init` printed.
type initOutput struct {
	password string
	vars     map[string]string // SLOTD_…=value lines (--print)
}

func parseInit(t *testing.T, out string) initOutput {
	t.Helper()
	o := initOutput{vars: map[string]string{}}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "admin password (shown once, not stored): "); ok {
			o.password = p
		}
		if k, v, ok := strings.Cut(line, "="); ok && strings.HasPrefix(k, "SLOTD_") {
			o.vars[k] = v
		}
	}
	if o.password == "" {
		t.Fatalf("init printed no admin password:\n%s", out)
	}
	return o
}

// unit is the [Service] section of a systemd unit: each key's values in
// order.
type unit map[string][]string

func readUnit(t *testing.T, path string) unit {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	u, section := unit{}, ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			section = line
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok && section == "[Service]" {
			u[k] = append(u[k], v)
		}
	}
	return u
}

func (u unit) one(t *testing.T, key string) string {
	t.Helper()
	if len(u[key]) != 1 {
		t.Fatalf("systemd unit: want one %s=, have %q", key, u[key])
	}
	return u[key][0]
}

// TestSystemdUnitStarts starts deploy/systemd/slotd.service's ExecStartPre
// and ExecStart as systemd would: the unit's Environment= with %d its
// $CREDENTIALS_DIRECTORY (the LoadCredential= files, which `slotd init
// --secrets` wrote) and the working directory its StateDirectory=, on the
// SQLite default and on PostgreSQL (SLOTD_DB in slotd.env). It answers
// /readyz, the admin init created signs in with the password init printed,
// and the clinic's settings init kept are served.
func TestSystemdUnitStarts(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testSystemdUnit(t, "") })
	t.Run("postgres", func(t *testing.T) { testSystemdUnit(t, pgtest.DSN(t)) })
}

func testSystemdUnit(t *testing.T, dsn string) {
	u := readUnit(t, "../../deploy/systemd/slotd.service")
	root := t.TempDir()
	stateRoot := filepath.Join(root, "var-lib") // %S
	state := filepath.Join(stateRoot, u.one(t, "StateDirectory"))
	creds := filepath.Join(root, "credentials") // %d
	etc := filepath.Join(root, "etc-slotd-secrets")
	for _, d := range []string{state, creds} {
		mustNil(t, os.MkdirAll(d, 0o700))
	}
	expand := strings.NewReplacer("%d", creds, "%S", stateRoot, "%%", "%").Replace
	if wd := u.one(t, "WorkingDirectory"); expand(wd) != state {
		t.Fatalf("WorkingDirectory=%s is not the state directory %%S/%s: the SQLite default would land elsewhere", wd, u.one(t, "StateDirectory"))
	}
	if ef := u.one(t, "EnvironmentFile"); !strings.HasPrefix(ef, "-") {
		t.Errorf("EnvironmentFile=%s is required: the SQLite default needs no settings file", ef)
	}

	// The operator's first step: slotd init into the directory the
	// credentials are loaded from (the unit's LoadCredential= sources).
	db := dsn
	if db == "" {
		db = "sqlite:" + filepath.Join(state, sqlitePath(defaultDB)) // where the relative default lands
	}
	initOut := runTo(t, root, slotdEnv(), []string{os.Args[0], "init", "--secrets", etc, "--db", db,
		"--clinic-name", "Cabinet Lumière", "--clinic-timezone", "Asia/Ho_Chi_Minh", "--default-language", "vi",
		"--currency", "VND", "--phone-region", "VN"})
	admin := parseInit(t, initOut)
	var credNames []string
	for _, lc := range u["LoadCredential"] {
		name, src, ok := strings.Cut(lc, ":")
		if !ok || filepath.Dir(src) != "/etc/slotd/secrets" {
			t.Fatalf("LoadCredential=%s: want NAME:/etc/slotd/secrets/FILE", lc)
		}
		b, err := os.ReadFile(filepath.Join(etc, filepath.Base(src)))
		if err != nil {
			t.Fatalf("LoadCredential=%s: slotd init wrote no such file: %v", lc, err)
		}
		mustNil(t, os.WriteFile(filepath.Join(creds, name), b, 0o400))
		credNames = append(credNames, name)
	}
	slices.Sort(credNames)
	if want := []string{authSecretFile, dataKeysFile, paymentSecretFile}; !slices.Equal(credNames, want) {
		t.Errorf("the unit loads the credentials %v, want %v", credNames, want)
	}

	env := []string{"CREDENTIALS_DIRECTORY=" + creds, "STATE_DIRECTORY=" + state}
	for _, e := range u["Environment"] {
		env = append(env, expand(strings.Trim(e, `"`)))
	}
	for _, want := range []string{"SLOTD_AUTH_SECRET_FILE=" + creds + "/", "SLOTD_DATA_KEYS_FILE=" + creds + "/"} {
		if !slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, want) }) {
			t.Errorf("the unit's Environment= sets no %s…", want)
		}
	}
	// slotd.env (EnvironmentFile=, which overrides Environment=): free
	// ports, and on PostgreSQL the database.
	env = append(env, "SLOTD_ADDR=127.0.0.1:0", "SLOTD_METRICS_ADDR=127.0.0.1:0")
	if dsn != "" {
		env = append(env, "SLOTD_DB="+dsn)
	}
	env = slotdEnv(env...)
	for _, pre := range u["ExecStartPre"] {
		runTo(t, state, env, binary(t, strings.Fields(pre)))
	}
	in := startIn(t, state, env, binary(t, strings.Fields(u.one(t, "ExecStart"))))
	waitReady(t, in)
	if dsn == "" {
		if _, err := os.Stat(filepath.Join(state, sqlitePath(defaultDB))); err != nil {
			t.Errorf("the SQLite default is not in the state directory: %v", err)
		}
		// The keys came from the credentials: no key file was made
		// beside the database (it would not open the sealed data).
		if _, err := os.Stat(sqlite.KeyFileOf(filepath.Join(state, sqlitePath(defaultDB)))); err == nil {
			t.Error("serve made a key file beside the database instead of using the credential")
		}
	}
	staffSignIn(t, in.url, "admin", admin.password)
	r, err := http.Get(in.url + "/fhir/Location")
	mustNil(t, err)
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if !strings.Contains(string(body), "Cabinet Lumière") {
		t.Errorf("the clinic's name kept by init is not served (FHIR Location):\n%s", body)
	}
	in.stop(t)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// staffSignIn signs in through the web UI's staff form (its CSRF token
// and cookie) and fails the test unless it lands on the staff pages.
func staffSignIn(t *testing.T, base, name, password string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	r, err := c.Get(base + "/staff/signin")
	mustNil(t, err)
	page, _ := io.ReadAll(r.Body)
	r.Body.Close()
	m := csrfField.FindSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF field on /staff/signin:\n%s", page)
	}
	signin := func(pw string) *http.Response {
		r, err := c.PostForm(base+"/staff/signin", url.Values{"csrf": {string(m[1])}, "name": {name}, "password": {pw}})
		mustNil(t, err)
		r.Body.Close()
		return r
	}
	if r := signin(password + "x"); r.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a wrong password: %d, want 401", r.StatusCode)
	}
	if r := signin(password); r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != "/staff" {
		t.Fatalf("staff sign-in of %s with init's password: %d to %q, want 303 to /staff", name, r.StatusCode, r.Header.Get("Location"))
	}
	if r, err := c.Get(base + "/staff"); err != nil || r.StatusCode != 200 {
		t.Fatalf("/staff after signing in: %v %v", r, err)
	}
}

// manifest is the part of a Kubernetes Deployment this test runs.
type container struct {
	Name         string   `yaml:"name"`
	Args         []string `yaml:"args"`
	Env          []struct{ Name, Value string }
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
	Probes map[string]any `yaml:",inline"`
}

type deployment struct {
	Spec struct {
		Template struct {
			Spec struct {
				InitContainers []container `yaml:"initContainers"`
				Containers     []container `yaml:"containers"`
				Volumes        []struct {
					Name   string `yaml:"name"`
					Secret struct {
						SecretName string `yaml:"secretName"`
					} `yaml:"secret"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type secret struct {
	Kind     string `yaml:"kind"`
	Metadata struct{ Name string }
	Data     map[string]string `yaml:"stringData"`
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	mustNil(t, err)
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// probePath is a probe's httpGet path, "" without one.
func probePath(c container, probe string) string {
	p, _ := c.Probes[probe].(map[string]any)
	g, _ := p["httpGet"].(map[string]any)
	s, _ := g["path"].(string)
	return s
}

// TestKubernetesStarts runs deploy/kubernetes/deployment.yaml's migrate init
// container and then its slotd container, each with the manifest's args and
// env, against the test PostgreSQL, the Secret's keys (secret.yaml's, filled
// from `slotd init --print`) mounted where the pod mounts them; the probes
// answer 200 and the public port serves no /metrics nor /debug/pprof.
func TestKubernetesStarts(t *testing.T) {
	dsn := pgtest.DSN(t)
	var d deployment
	readYAML(t, "../../deploy/kubernetes/deployment.yaml", &d)
	var s secret
	readYAML(t, "../../deploy/kubernetes/secret.yaml", &s)
	pod := d.Spec.Template.Spec
	if len(pod.InitContainers) != 1 || len(pod.Containers) != 1 || len(pod.Volumes) != 1 {
		t.Fatalf("want one init container, one container and one volume: %+v", pod)
	}
	if s.Kind != "Secret" || pod.Volumes[0].Secret.SecretName != s.Metadata.Name {
		t.Fatalf("the pod mounts Secret %q, secret.yaml is %s %q", pod.Volumes[0].Secret.SecretName, s.Kind, s.Metadata.Name)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range s.Data {
			if !yield(k) {
				return
			}
		}
	})
	if want := []string{authSecretFile, dataKeysFile, "db", paymentSecretFile}; !slices.Equal(keys, want) {
		t.Fatalf("secret.yaml holds %v, want %v", keys, want)
	}
	for k, v := range s.Data {
		if k != "db" && !strings.Contains(v, "EXAMPLE") {
			t.Errorf("secret.yaml's %s looks like a real value: ship examples only", k)
		}
	}

	// The operator fills the Secret from init --print, run against the
	// new database.
	printed := parseInit(t, runTo(t, t.TempDir(), slotdEnv(), []string{os.Args[0], "init", "--print", "--db", dsn}))
	values := map[string]string{"db": dsn, authSecretFile: printed.vars["SLOTD_AUTH_SECRET"],
		dataKeysFile: printed.vars["SLOTD_DATA_KEYS"], paymentSecretFile: printed.vars["SLOTD_PAYMENT_SECRET"]}
	mount := t.TempDir()
	for k, v := range values {
		if v == "" {
			t.Fatalf("init --print gave no value for %s: %v", k, printed.vars)
		}
		mustNil(t, os.WriteFile(filepath.Join(mount, k), []byte(v), 0o400))
	}
	envOf := func(c container) []string {
		if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != pod.Volumes[0].Name {
			t.Fatalf("container %s does not mount the secrets volume: %+v", c.Name, c.VolumeMounts)
		}
		at := c.VolumeMounts[0].MountPath
		var env []string
		for _, e := range c.Env {
			v := e.Value
			if rest, ok := strings.CutPrefix(v, at+"/"); ok && strings.HasSuffix(e.Name, "_FILE") {
				if _, ok := s.Data[rest]; !ok {
					t.Errorf("container %s: %s names %s, which the Secret lacks", c.Name, e.Name, rest)
				}
				v = filepath.Join(mount, rest)
			}
			switch e.Name {
			case "SLOTD_ADDR", "SLOTD_METRICS_ADDR": // the pod's own network: a free loopback port here
				v = "127.0.0.1:0"
			}
			env = append(env, e.Name+"="+v)
		}
		return slotdEnv(env...)
	}
	for _, c := range append(pod.InitContainers, pod.Containers...) {
		for _, want := range []string{"SLOTD_DB_FILE=", "SLOTD_DATA_KEYS_FILE="} {
			if !slices.ContainsFunc(envOf(c), func(e string) bool { return strings.HasPrefix(e, want) }) {
				t.Errorf("container %s has no %s…", c.Name, want)
			}
		}
	}
	mig := pod.InitContainers[0]
	if !slices.Equal(mig.Args, []string{"migrate"}) {
		t.Fatalf("the init container runs %q, want migrate", mig.Args)
	}
	if out := runTo(t, t.TempDir(), envOf(mig), append([]string{os.Args[0]}, mig.Args...)); !strings.Contains(out, "migrations applied") {
		t.Fatalf("migrate init container: %s", out)
	}
	c := pod.Containers[0]
	in := startIn(t, t.TempDir(), envOf(c), append([]string{os.Args[0]}, c.Args...))
	for _, probe := range []string{"readinessProbe", "livenessProbe", "startupProbe"} {
		p := probePath(c, probe)
		if p == "" {
			t.Errorf("container %s has no %s", c.Name, probe)
			continue
		}
		testkit.Eventually(t, probe+" "+p+" answering 200", 60*time.Second, func() bool { return status(in.url+p) == 200 })
	}
	for _, p := range []string{"/metrics", "/debug/pprof/"} {
		if code := status(in.url + p); code == 200 {
			t.Errorf("the public port serves %s", p)
		}
	}
	in.stop(t)
}

// TestComposeAndDockerfile checks what no container engine here can run:
// the compose file's slotd gets the database URL, auth secret and data
// keys as secrets the file declares, and the image's working directory is
// the volume holding the SQLite default, owned by the user it runs as.
func TestComposeAndDockerfile(t *testing.T) {
	var c struct {
		Services map[string]struct {
			Environment map[string]string `yaml:"environment"`
			Secrets     []string          `yaml:"secrets"`
			Image       string            `yaml:"image"`
		} `yaml:"services"`
		Secrets map[string]struct{ File string } `yaml:"secrets"`
	}
	readYAML(t, "../../deploy/compose.yaml", &c)
	sl, ok := c.Services["slotd"]
	if !ok || c.Services["postgres"].Image == "" {
		t.Fatalf("compose.yaml lacks the slotd or postgres service: %+v", c.Services)
	}
	for _, v := range []string{"SLOTD_DB_FILE", "SLOTD_AUTH_SECRET_FILE", "SLOTD_DATA_KEYS_FILE", "SLOTD_PAYMENT_SECRET_FILE"} {
		name, ok := strings.CutPrefix(sl.Environment[v], "/run/secrets/")
		if !ok || !slices.Contains(sl.Secrets, name) || c.Secrets[name].File == "" {
			t.Errorf("compose.yaml: slotd's %s=%q is not one of its secrets declared as a file", v, sl.Environment[v])
		}
	}
	if h, _, err := net.SplitHostPort(sl.Environment["SLOTD_METRICS_ADDR"]); err != nil || h != "127.0.0.1" {
		t.Errorf("compose.yaml: SLOTD_METRICS_ADDR %q is not loopback", sl.Environment["SLOTD_METRICS_ADDR"])
	}

	b, err := os.ReadFile("../../deploy/Dockerfile")
	mustNil(t, err)
	text := string(b)
	final := text[strings.LastIndex(text, "\nFROM "):]
	last := func(instr string) string {
		m := regexp.MustCompile(`(?m)^`+instr+`\s+(.+)$`).FindAllStringSubmatch(final, -1)
		if m == nil {
			t.Fatalf("the Dockerfile's last stage has no %s", instr)
		}
		return strings.TrimSpace(m[len(m)-1][1])
	}
	wd := last("WORKDIR")
	vol := strings.Trim(last("VOLUME"), `[]" `)
	if vol != wd {
		t.Errorf("the Dockerfile's VOLUME %s is not its WORKDIR %s, where the SQLite default (%s) lands", vol, wd, defaultDB)
	}
	user := last("USER")
	if !regexp.MustCompile(`(?m)^COPY --from=build --chown=` + regexp.QuoteMeta(user) + `\s+\S+\s+` + regexp.QuoteMeta(wd) + `$`).MatchString(final) {
		t.Errorf("the Dockerfile does not give %s to the user %s it runs as: the SQLite default could not be created", wd, user)
	}
}
