package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestDeliveryQueryFilter(t *testing.T) {
	for _, c := range []struct {
		q    DeliveryQuery
		want string
	}{
		{DeliveryQuery{}, ""},
		{DeliveryQuery{Status: "failed"}, `["status","=","failed"]`},
		{DeliveryQuery{EventIDs: []string{"e1"}}, `["eventId","=","e1"]`},
		{DeliveryQuery{ID: "d1", EventType: "invoice.canceled"}, `[["id","=","d1"],"and",["eventType","=","invoice.canceled"]]`},
		{DeliveryQuery{Status: "pending", EventIDs: []string{"e1", "e2"}},
			`[["status","=","pending"],"and",[["eventId","=","e1"],"or",["eventId","=","e2"]]]`},
	} {
		if got := c.q.Filter(); got != c.want {
			t.Errorf("%+v: filter %s, want %s", c.q, got, c.want)
		}
	}
}

func TestLoadDeliveries(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-TIME-ZONE") != "America/Mexico_City" || r.Header.Get("X-API-KEY") != "k" {
			t.Errorf("headers %v", r.Header)
		}
		if r.URL.Query().Get("filter") == `["status","=","lost"]` {
			w.WriteHeader(400)
			_ = json.NewEncoder(w).Encode(map[string]any{"data": []Failure{{PropertyName: "filter", ErrorMessage: "bad"}},
				"succeeded": false, "message": "Bad Request", "details": "", "httpStatusCode": 400, "traceIdentifier": "t"})
			return
		}
		_, _ = w.Write([]byte(`{"data":[{"id":"d1","status":"failed"}],"totalCount":4,"groupCount":-1,"summary":null}`))
	}))
	defer srv.Close()
	c := &Client{BaseURL: srv.URL, TenantKey: "t", APIKey: "k", TimeZone: "America/Mexico_City"}
	page, err := c.LoadDeliveries(context.Background(), "w1", DeliveryQuery{Status: "failed", Take: 1})
	if err != nil || page.TotalCount != 4 || len(page.Data) != 1 || page.Data[0].ID != "d1" {
		t.Fatalf("page %+v, %v", page, err)
	}
	_, err = c.LoadDeliveries(context.Background(), "w1", DeliveryQuery{Status: "lost"})
	var ae *Error
	if !errors.As(err, &ae) || ae.Status != 400 || len(ae.Lines()) != 1 || ae.Lines()[0] != "filter: bad" {
		t.Fatalf("error %v", err)
	}
	srv.Close()
	_, err = c.LoadDeliveries(context.Background(), "w1", DeliveryQuery{})
	if !errors.As(err, &ae) || ae.Status != 0 {
		t.Fatalf("unreachable: %v", err)
	}
}
