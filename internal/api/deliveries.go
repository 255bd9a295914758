package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
)

// Delivery statuses (spec 3 §2.3).
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// DeliveryQuery selects deliveries of one webhook through its load endpoint
// (GET /api/v4/webhooks/<id>/deliveries/load, spec 1 §7.6). Empty fields select everything;
// the conditions given must all hold.
type DeliveryQuery struct {
	ID        string   // one delivery
	Status    string   // pending, succeeded or failed
	EventType string   // for example invoice.canceled
	EventIDs  []string // deliveries of any of these events
	Skip      int      // deliveries to pass over (newest first)
	Take      int      // at most this many; 0 or less for all of them
}

// DeliveryPage is the answer of the deliveries load endpoint: some deliveries, newest first,
// and how many match in all.
type DeliveryPage struct {
	Data       []Delivery `json:"data"`
	TotalCount int        `json:"totalCount"`
}

// Filter is the load query's filter for q (DevExtreme's array form), or "" for none.
func (q DeliveryQuery) Filter() string {
	var conds []any
	if q.ID != "" {
		conds = append(conds, []any{"id", "=", q.ID})
	}
	if q.Status != "" {
		conds = append(conds, []any{"status", "=", q.Status})
	}
	if q.EventType != "" {
		conds = append(conds, []any{"eventType", "=", q.EventType})
	}
	if len(q.EventIDs) > 0 {
		var alts []any
		for i, id := range q.EventIDs {
			if i > 0 {
				alts = append(alts, "or")
			}
			alts = append(alts, []any{"eventId", "=", id})
		}
		if len(q.EventIDs) == 1 {
			conds = append(conds, alts[0])
		} else {
			conds = append(conds, alts)
		}
	}
	var f any
	switch len(conds) {
	case 0:
		return ""
	case 1:
		f = conds[0]
	default:
		var all []any
		for i, c := range conds {
			if i > 0 {
				all = append(all, "and")
			}
			all = append(all, c)
		}
		f = all
	}
	raw, _ := json.Marshal(f) // strings and slices of them always encode
	return string(raw)
}

// LoadDeliveries reads the deliveries of a webhook that match q, newest first, with the number
// that match in all. The load endpoint answers without the envelope; its failures come in one.
func (c *Client) LoadDeliveries(ctx context.Context, webhookID string, q DeliveryQuery) (DeliveryPage, error) {
	v := url.Values{}
	if f := q.Filter(); f != "" {
		v.Set("filter", f)
	}
	if q.Skip > 0 {
		v.Set("skip", strconv.Itoa(q.Skip))
	}
	if q.Take > 0 {
		v.Set("take", strconv.Itoa(q.Take))
	}
	v.Set("requireTotalCount", "true")
	var out DeliveryPage
	err := c.getLoadResult(ctx, "/api/v4/webhooks/"+url.PathEscape(webhookID)+"/deliveries/load", v, &out)
	if out.Data == nil {
		out.Data = []Delivery{}
	}
	return out, err
}

// getLoadResult GETs a load endpoint: a success is bare JSON decoded into out; anything else
// is read as an envelope and returned as *Error, as Do does.
func (c *Client) getLoadResult(ctx context.Context, path string, query url.Values, out any) error {
	return c.send(ctx, http.MethodGet, path, query, nil, out, true)
}
