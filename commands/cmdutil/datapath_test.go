package cmdutil

import (
	"path/filepath"
	"testing"
)

func TestDataPathFor(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		goos string
		env  map[string]string
		home string
		want string
	}{
		{"linux", nil, "/home/ana", filepath.Join("/home/ana", ".local", "share", "timbra", "timbra.db")},
		{"linux", map[string]string{"XDG_DATA_HOME": "/data"}, "/home/ana", filepath.Join("/data", "timbra", "timbra.db")},
		{"linux", map[string]string{"XDG_DATA_HOME": "relative"}, "/home/ana", filepath.Join("/home/ana", ".local", "share", "timbra", "timbra.db")},
		{"freebsd", nil, "/home/ana", filepath.Join("/home/ana", ".local", "share", "timbra", "timbra.db")},
		{"darwin", map[string]string{"XDG_DATA_HOME": "/data"}, "/Users/ana", filepath.Join("/Users/ana", "Library", "Application Support", "timbra", "timbra.db")},
		{"windows", map[string]string{"LocalAppData": `C:\Users\ana\AppData\Local`}, `C:\Users\ana`, filepath.Join(`C:\Users\ana\AppData\Local`, "timbra", "timbra.db")},
		{"windows", nil, `C:\Users\ana`, filepath.Join(`C:\Users\ana`, "AppData", "Local", "timbra", "timbra.db")},
		{"linux", nil, "", filepath.Join("timbra", "timbra.db")},
	}
	for _, c := range cases {
		if got := dataPathFor(c.goos, env(c.env), c.home); got != c.want {
			t.Errorf("dataPathFor(%s, %v, %q) = %q, want %q", c.goos, c.env, c.home, got, c.want)
		}
	}
}

func TestDefaultDataPathUsesEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", dir)
	t.Setenv("LocalAppData", dir)
	got := DefaultDataPath()
	if filepath.Base(got) != "timbra.db" || filepath.Base(filepath.Dir(got)) != "timbra" {
		t.Fatalf("DefaultDataPath() = %q", got)
	}
}
