package cmdutil

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/zalando/go-keyring"
)

// KeyringService is the service name of timbra's entries in the OS keyring; the user is the
// profile name.
const KeyringService = "timbra"

// Where an API key is kept.
const (
	backendAuto   = "auto"   // the OS keyring, or the credentials file where there is none
	backendSystem = "system" // the OS keyring only
	backendFile   = "file"   // the credentials file only
)

// Sources of a resolved value, as `timbra config show` prints them.
const (
	srcKeyring = "keyring"
	SrcFile    = "file"
	srcProfile = "profile"
	SrcDefault = "default"
	SrcFlag    = "flag"
	SrcNotSet  = "(not set)"
)

// SecretStore keeps the API key of each profile in the OS keyring (zalando/go-keyring) or, where
// no keyring is available (a headless Linux without the Secret Service), in
// <config dir>/credentials.json with mode 0600. TIMBRA_KEYRING=file|system|auto forces a backend.
type SecretStore struct {
	backend string
	dir     string
}

func NewSecretStore(dir string) (*SecretStore, error) {
	b := strings.ToLower(strings.TrimSpace(os.Getenv("TIMBRA_KEYRING")))
	switch b {
	case "":
		b = backendAuto
	case backendAuto, backendSystem, backendFile:
	default:
		return nil, fmt.Errorf("invalid TIMBRA_KEYRING %q: use auto, system or file", b)
	}
	return &SecretStore{backend: b, dir: dir}, nil
}

func (s *SecretStore) FilePath() string { return filepath.Join(s.dir, CredentialsFileName) }

// credentialsFile is the content of credentials.json.
type credentialsFile struct {
	Profiles map[string]storedKey `json:"profiles"`
}

type storedKey struct {
	APIKey string `json:"apiKey"`
}

func (s *SecretStore) readFile() (*credentialsFile, error) {
	cf := &credentialsFile{Profiles: map[string]storedKey{}}
	raw, err := os.ReadFile(s.FilePath())
	if errors.Is(err, fs.ErrNotExist) {
		return cf, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.FilePath(), err)
	}
	if err := json.Unmarshal(raw, cf); err != nil {
		// never quote the content: it holds secrets
		return nil, fmt.Errorf("read %s: not a timbra credentials file", s.FilePath())
	}
	if cf.Profiles == nil {
		cf.Profiles = map[string]storedKey{}
	}
	return cf, nil
}

// Get returns the API key of profile and where it was found (srcKeyring or srcFile); an empty
// key when there is none.
func (s *SecretStore) Get(profile string) (key, source string, err error) {
	if s.backend != backendFile {
		key, err := keyring.Get(KeyringService, profile)
		switch {
		case err == nil && key != "":
			return key, srcKeyring, nil
		case err == nil, errors.Is(err, keyring.ErrNotFound):
		case s.backend == backendSystem:
			return "", "", fmt.Errorf("system keyring: %s", firstLine(err.Error()))
		}
		if s.backend == backendSystem {
			return "", "", nil
		}
	}
	cf, err := s.readFile()
	if err != nil {
		return "", "", err
	}
	if k := cf.Profiles[profile].APIKey; k != "" {
		return k, SrcFile, nil
	}
	return "", "", nil
}

// Set stores the API key of profile and says where (srcKeyring or srcFile). warning is Set when
// the keyring was wanted but not available.
func (s *SecretStore) Set(profile, key string) (source, warning string, err error) {
	if s.backend != backendFile {
		kerr := keyring.Set(KeyringService, profile, key)
		if kerr == nil {
			// a key left in the file from an earlier login would be stale
			if _, err := s.deleteFile(profile); err != nil {
				return "", "", err
			}
			return srcKeyring, "", nil
		}
		if s.backend == backendSystem {
			return "", "", fmt.Errorf("system keyring: %s", firstLine(kerr.Error()))
		}
		warning = fmt.Sprintf("warning: no system keyring available (%s); the API key is stored in %s (mode 0600)",
			firstLine(kerr.Error()), s.FilePath())
	}
	cf, err := s.readFile()
	if err != nil {
		return "", "", err
	}
	cf.Profiles[profile] = storedKey{APIKey: key}
	if err := WriteJSONFile(s.dir, CredentialsFileName, cf); err != nil {
		return "", "", err
	}
	return SrcFile, warning, nil
}

// Remove deletes the API key of profile from the keyring and the file, and says from where it
// was removed (descriptions such as "the system keyring").
func (s *SecretStore) Remove(profile string) (removed []string, err error) {
	if s.backend != backendFile {
		kerr := keyring.Delete(KeyringService, profile)
		switch {
		case kerr == nil:
			removed = append(removed, "the system keyring")
		case errors.Is(kerr, keyring.ErrNotFound):
		case s.backend == backendSystem:
			return nil, fmt.Errorf("system keyring: %s", firstLine(kerr.Error()))
		}
	}
	ok, err := s.deleteFile(profile)
	if err != nil {
		return removed, err
	}
	if ok {
		removed = append(removed, s.FilePath())
	}
	return removed, nil
}

// deleteFile removes profile from the credentials file, and the file when it is left empty.
func (s *SecretStore) deleteFile(profile string) (bool, error) {
	cf, err := s.readFile()
	if err != nil {
		return false, err
	}
	if _, ok := cf.Profiles[profile]; !ok {
		return false, nil
	}
	delete(cf.Profiles, profile)
	if len(cf.Profiles) == 0 {
		if err := os.Remove(s.FilePath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
		return true, nil
	}
	return true, WriteJSONFile(s.dir, CredentialsFileName, cf)
}

// Resolved are the connection settings of a client command and where each came from.
type Resolved struct {
	ConfigDir string
	Profile   Value
	BaseURL   Value
	TenantKey Value
	APIKey    Value
	inConfig  bool // the profile exists in the configuration file
}

// Value is a setting and its source ("env TIMBRA_...", "profile", "keyring", "file", ...).
type Value struct {
	Value  string
	Source string
}

func envValue(name string) (Value, bool) {
	if v := os.Getenv(name); v != "" {
		return Value{Value: v, Source: "env " + name}, true
	}
	return Value{}, false
}

// Resolve reads the settings of f.Profile: environment variables first, then the profile, then
// the keyring or the credentials file for the API key.
func (f *Factory) Resolve() (*Resolved, error) {
	dir, err := ConfigDir()
	if err != nil {
		return nil, err
	}
	r := &Resolved{ConfigDir: dir, Profile: f.profileValue()}
	cfg, err := LoadConfig(dir)
	if err != nil {
		return nil, err
	}
	p, inConfig := cfg.Profiles[r.Profile.Value]
	r.inConfig = inConfig

	switch v, ok := envValue("TIMBRA_BASE_URL"); {
	case ok:
		r.BaseURL = v
	case p.BaseURL != "":
		r.BaseURL = Value{p.BaseURL, srcProfile}
	default:
		r.BaseURL = Value{DefaultBaseURL, SrcDefault}
	}
	switch v, ok := envValue("TIMBRA_TENANT_KEY"); {
	case ok:
		r.TenantKey = v
	case p.TenantKey != "":
		r.TenantKey = Value{p.TenantKey, srcProfile}
	}
	if v, ok := envValue("TIMBRA_API_KEY"); ok {
		r.APIKey = v
	} else {
		store, err := NewSecretStore(dir)
		if err != nil {
			return nil, err
		}
		key, src, err := store.Get(r.Profile.Value)
		if err != nil {
			return nil, err
		}
		r.APIKey = Value{key, src}
	}
	return r, nil
}

// profileValue is the profile in use and where its name came from.
func (f *Factory) profileValue() Value {
	return Value{f.Profile, f.profileSource}
}

const notLoggedIn = "not logged in: run 'timbra login' or set TIMBRA_BASE_URL, TIMBRA_TENANT_KEY and TIMBRA_API_KEY"

// newClient builds the API client of the current profile.
func (f *Factory) newClient() (*api.Client, error) {
	r, err := f.Resolve()
	if err != nil {
		return nil, err
	}
	if r.TenantKey.Value == "" || r.APIKey.Value == "" {
		var why []string
		if r.Profile.Value != DefaultProfile && !r.inConfig {
			why = append(why, fmt.Sprintf("no profile %q in %s", r.Profile.Value, filepath.Join(r.ConfigDir, ConfigFileName)))
		} else if r.TenantKey.Value != "" || r.APIKey.Value != "" {
			missing := "API key"
			if r.TenantKey.Value == "" {
				missing = "tenant key"
			}
			why = append(why, fmt.Sprintf("profile %q has no %s", r.Profile.Value, missing))
		}
		if len(why) == 0 {
			return nil, errors.New(notLoggedIn)
		}
		return nil, fmt.Errorf("%s (%s)", notLoggedIn, strings.Join(why, "; "))
	}
	return &api.Client{
		BaseURL:   r.BaseURL.Value,
		TenantKey: r.TenantKey.Value,
		APIKey:    r.APIKey.Value,
		TimeZone:  f.TimeZone,
		UserAgent: f.UserAgent(),
		HTTP:      f.HTTP,
	}, nil
}

// MaskSecret shows enough of a secret to recognise it: the first 8 and the last 4 characters.
// Short secrets are hidden whole.
func MaskSecret(s string) string {
	if s == "" {
		return SrcNotSet
	}
	r := []rune(s)
	if len(r) < 16 {
		return strings.Repeat("*", 8)
	}
	return string(r[:8]) + "…" + string(r[len(r)-4:])
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
