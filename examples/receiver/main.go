// Command receiver is the smallest receiver of timbra's webhooks, for trying them on one machine
// (README.md's tour): it listens on ADDR (default 127.0.0.1:3000), prints one line for each
// request (method, path, the event's type and id), and answers 204. It checks no signature: a
// real receiver verifies each one (docs/guides/developer.md, "Verify signatures in your
// receiver"). Standard library only, to copy and change.
//
//	go run ./examples/receiver 127.0.0.1:3000
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
)

func main() {
	addr := "127.0.0.1:3000"
	if len(os.Args) > 1 {
		addr = os.Args[1]
	}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		var event struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(body, &event)
		fmt.Printf("%s %s %s %s\n", r.Method, r.URL.Path, event.Type, r.Header.Get("webhook-id"))
		w.WriteHeader(http.StatusNoContent)
	})
	fmt.Printf("receiving on http://%s\n", addr)
	log.Fatal(http.ListenAndServe(addr, nil))
}
