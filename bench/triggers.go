package bench

// Pieces shared by the scenarios that trigger events over HTTP and listen to them: API keys
// rotated under the trigger endpoint's limit, one trigger, and a listen session.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/listener"
)

// keyring gives the credentials of one more trigger of a person: each API key sends at most
// triggersPerKey (the trigger endpoint is BusinessWrite, 600 per 60 s per key), and a new key
// of the same person is made in process when the last one is used up. Safe for concurrent use.
type keyring struct {
	h     http.Handler // the server's handler, for making keys in process
	owner http.Header  // the person's credentials; keys made with them are the person's
	desc  string

	mu   sync.Mutex
	keys []http.Header
	used int // triggers given to the last key
}

func newKeyring(h http.Handler, owner http.Header, desc string) *keyring {
	return &keyring{h: h, owner: owner.Clone(), desc: desc, keys: []http.Header{owner.Clone()}}
}

// next is the credentials header of one more trigger.
func (k *keyring) next() (http.Header, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.used >= triggersPerKey {
		body, _ := json.Marshal(api.APIKeyCreate{Description: &k.desc})
		var key api.APIKey
		if err := inProcess(k.h, http.MethodPost, KeysPath, k.owner, string(body), http.StatusOK, &key); err != nil {
			return nil, err
		}
		k.keys = append(k.keys, http.Header{"X-Tenant-Key": {k.owner.Get("X-Tenant-Key")}, "X-Api-Key": {key.APIKeyValue}})
		k.used = 0
	}
	k.used++
	return k.keys[len(k.keys)-1], nil
}

// count is how many keys the triggers have used.
func (k *keyring) count() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.keys)
}

// postTrigger posts one POST /api/v4/events/trigger through c with the credentials in key and
// returns the event id of its 202.
func postTrigger(c *http.Client, url string, key http.Header, body string) (string, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("X-Tenant-Key", key.Get("X-Tenant-Key"))
	req.Header.Set("X-Api-Key", key.Get("X-Api-Key"))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusAccepted {
		return "", fmt.Errorf("trigger: status %d: %.300s", resp.StatusCode, raw)
	}
	var env struct {
		Data api.EventTriggered `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil || env.Data.EventID == "" {
		return "", fmt.Errorf("trigger: answer %.300s (%v)", raw, err)
	}
	return env.Data.EventID, nil
}

// listenSession is a running listener.Client, the client `timbra listen` runs.
type listenSession struct {
	cancel context.CancelFunc
	done   chan error
}

// startListenSession runs a listener.Client for the person of header against the server at
// baseURL (no proxy), forwarding with fwd (nil: no forward), and waits for its first Ready.
// onReceived (may be nil) is where `timbra listen` shows an event's row as it arrives, onEvent
// where it shows its outcome; onDisconnect is told of every drop.
func startListenSession(baseURL string, header http.Header, fwd *listener.Forwarder, timeout time.Duration,
	onReceived, onEvent func(listener.EventResult), onDisconnect func(error)) (*listenSession, error) {
	wsURL, err := listener.DialURL(baseURL, nil)
	if err != nil {
		return nil, err
	}
	ready := make(chan struct{})
	c := &listener.Client{
		URL:     wsURL,
		Header:  header.Clone(),
		Dialer:  &websocket.Dialer{HandshakeTimeout: timeout}, // no proxy
		Forward: fwd,
		OnReady: func(listener.Ready, bool) error {
			select {
			case <-ready:
			default:
				close(ready)
			}
			return nil
		},
		OnReceived: onReceived,
		OnEvent:    onEvent,
		OnDisconnect: func(err error, _ time.Duration, _ int) {
			if onDisconnect != nil {
				onDisconnect(err)
			}
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &listenSession{cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- c.Run(ctx) }()
	select {
	case <-ready:
		return s, nil
	case err := <-s.done:
		cancel()
		return nil, fmt.Errorf("listen session: %v", err)
	case <-time.After(timeout):
		s.Close()
		return nil, errors.New("listen session: no ready")
	}
}

// Close ends the session (normal close) and waits until Run has returned, its forwards cut.
func (s *listenSession) Close() error {
	s.cancel()
	return <-s.done
}
