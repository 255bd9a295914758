package cmdutil

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzConfigFile: config.json and credentials.json as found on disk (written by hand, by an
// older version, or damaged). Reading never panics; what reads back is saved and read again
// unchanged; a damaged credentials file is refused without quoting its content.
func FuzzConfigFile(f *testing.F) {
	f.Add([]byte(`{"profiles":{"default":{"baseUrl":"http://127.0.0.1:8080","tenantKey":"t"}}}`))
	f.Add([]byte(`{"profiles":null}`))
	f.Add([]byte(`{"profiles":{"x":{"apiKey":"sk_test_secretvalue123"}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ConfigFileName), raw, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := LoadConfig(dir)
		if err == nil {
			if cfg.Profiles == nil {
				t.Fatal("nil profiles")
			}
			if err := SaveConfig(dir, cfg); err != nil {
				t.Fatal(err)
			}
			again, err := LoadConfig(dir)
			if err != nil || !reflect.DeepEqual(again, cfg) {
				t.Fatalf("round trip: %+v then %+v (%v)", cfg, again, err)
			}
		}

		if err := os.WriteFile(filepath.Join(dir, CredentialsFileName), raw, 0o600); err != nil {
			t.Fatal(err)
		}
		s := &SecretStore{backend: backendFile, dir: dir}
		cf, err := s.readFile()
		if err != nil {
			if len(raw) >= 8 && bytes.Contains([]byte(err.Error()), raw) {
				t.Fatalf("the error quotes the credentials file: %v", err)
			}
			return
		}
		if cf.Profiles == nil {
			t.Fatal("nil profiles in credentials")
		}
	})
}
