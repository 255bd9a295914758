package cmdutil

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
)

const (
	DefaultProfile = "default"
	DefaultBaseURL = "http://127.0.0.1:8080"

	ConfigFileName      = "config.json"
	CredentialsFileName = "credentials.json"
)

// Profile is what `timbra login` keeps of one account: where the API is and which tenant. The API
// key is not here: it lives in the keyring (or the credentials file).
type Profile struct {
	BaseURL   string `json:"baseUrl"`
	TenantKey string `json:"tenantKey"`
}

// Config is the content of <config dir>/config.json.
type Config struct {
	Profiles map[string]Profile `json:"profiles"`
}

// ConfigDir is the folder of timbra's configuration: $TIMBRA_CONFIG_DIR, or
// <os.UserConfigDir()>/timbra.
func ConfigDir() (string, error) {
	if d := os.Getenv("TIMBRA_CONFIG_DIR"); d != "" {
		return d, nil
	}
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("cannot find the configuration folder (set TIMBRA_CONFIG_DIR): %w", err)
	}
	return filepath.Join(base, "timbra"), nil
}

// LoadConfig reads the configuration; a missing file is an empty configuration.
func LoadConfig(dir string) (*Config, error) {
	cfg := &Config{Profiles: map[string]Profile{}}
	path := filepath.Join(dir, ConfigFileName)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(raw, cfg); err != nil {
		return nil, fmt.Errorf("read %s: not a timbra configuration: %w", path, err)
	}
	if cfg.Profiles == nil {
		cfg.Profiles = map[string]Profile{}
	}
	return cfg, nil
}

// SaveConfig writes the configuration with mode 0600 in a folder with mode 0700.
func SaveConfig(dir string, cfg *Config) error {
	return WriteJSONFile(dir, ConfigFileName, cfg)
}

// WriteJSONFile replaces dir/name atomically with the JSON of v, readable only by the user.
func WriteJSONFile(dir, name string, v any) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	raw = append(raw, '\n')
	path := filepath.Join(dir, name)
	tmp, err := os.CreateTemp(dir, "."+name+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op once renamed; CreateTemp makes it with mode 0600
	if _, err := tmp.Write(raw); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

var profileNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

func ValidProfileName(name string) error {
	if !profileNameRE.MatchString(name) {
		return fmt.Errorf("invalid profile name %q: use letters, digits, '.', '_' or '-' (at most 64)", name)
	}
	return nil
}

func CheckBaseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("invalid base URL %q: want http://host[:port] or https://host[:port]", s)
	}
	return nil
}
