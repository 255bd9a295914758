package server

import (
	"net/http"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/loadquery"
	"github.com/timbra-mx/timbra/internal/ratelimit"
	"github.com/timbra-mx/timbra/internal/webhooks"
)

func (s *Server) webhookRoutes() {
	bw := ratelimit.BusinessWrite
	s.mux.Handle("POST /api/v4/webhooks", s.apiRoute(s.standard, s.createWebhook))
	s.mux.Handle("GET /api/v4/webhooks", s.apiRoute(s.standard, s.listWebhooks))
	s.mux.Handle("GET /api/v4/webhooks/{id}", s.apiRoute(s.standard, s.getWebhook))
	s.mux.Handle("PUT /api/v4/webhooks/{id}", s.apiRoute(s.standard, s.replaceWebhook))
	s.mux.Handle("DELETE /api/v4/webhooks/{id}", s.apiRoute(s.standard, s.deleteWebhook))
	s.mux.Handle("POST /api/v4/webhooks/{id}/test", s.apiRoute(bw, s.testWebhook))
	s.mux.Handle("POST /api/v4/webhooks/{id}/rotate-secret", s.apiRoute(s.standard, s.rotateWebhookSecret))
	s.mux.Handle("GET /api/v4/webhooks/{id}/deliveries", s.apiRoute(s.standard, s.listDeliveries))
	s.mux.Handle("GET /api/v4/webhooks/{id}/queue", s.apiRoute(s.standard, s.webhookQueue))
	s.mux.Handle("GET /api/v4/webhooks/load", s.apiRoute(s.standard, s.loadWebhooks))
	s.mux.Handle("GET /api/v4/webhooks/{id}/deliveries/load", s.apiRoute(s.standard, s.loadDeliveries))

	s.mux.Handle("GET /api/v4/events", s.apiRoute(s.standard, s.listEvents))
	s.mux.Handle("GET /api/v4/events/{id}", s.apiRoute(s.standard, s.getEvent))
	s.mux.Handle("POST /api/v4/events/{id}/resend", s.apiRoute(bw, s.resendEvent))
	s.mux.Handle("POST /api/v4/events/trigger", s.apiRoute(bw, s.triggerEvent))
}

func (s *Server) createWebhook(r *http.Request) (any, error) {
	var in api.WebhookCreate
	if err := decodeBody(r, &in, false); err != nil {
		return nil, err
	}
	w, err := s.webhooks.Create(r.Context(), caller(r), in)
	return reply{http.StatusCreated, w}, err
}

func (s *Server) listWebhooks(r *http.Request) (any, error) {
	page, size, err := paging(r, webhooks.PageSizeDefault, webhooks.PageSizeMax)
	if err != nil {
		return nil, err
	}
	return s.webhooks.List(r.Context(), caller(r), page, size)
}

func (s *Server) getWebhook(r *http.Request) (any, error) {
	return s.webhooks.Get(r.Context(), caller(r), r.PathValue("id"))
}

func (s *Server) webhookQueue(r *http.Request) (any, error) {
	return s.webhooks.Queue(r.Context(), caller(r), r.PathValue("id"))
}

func (s *Server) replaceWebhook(r *http.Request) (any, error) {
	var in api.WebhookUpdate
	if err := decodeBody(r, &in, false); err != nil {
		return nil, err
	}
	return s.webhooks.Replace(r.Context(), caller(r), r.PathValue("id"), in)
}

func (s *Server) deleteWebhook(r *http.Request) (any, error) {
	if err := s.webhooks.Delete(r.Context(), caller(r), r.PathValue("id")); err != nil {
		return nil, err
	}
	return true, nil
}

func (s *Server) testWebhook(r *http.Request) (any, error) {
	out, err := s.webhooks.Test(r.Context(), caller(r), r.PathValue("id"))
	return reply{http.StatusAccepted, out}, err
}

func (s *Server) rotateWebhookSecret(r *http.Request) (any, error) {
	return s.webhooks.RotateSecret(r.Context(), caller(r), r.PathValue("id"))
}

func (s *Server) listDeliveries(r *http.Request) (any, error) {
	page, size, err := paging(r, webhooks.PageSizeDefault, webhooks.PageSizeMax)
	if err != nil {
		return nil, err
	}
	return s.webhooks.Deliveries(r.Context(), caller(r), r.PathValue("id"), page, size)
}

func (s *Server) loadWebhooks(r *http.Request) (any, error) {
	all, err := s.webhooks.All(r.Context(), caller(r))
	if err != nil {
		return nil, err
	}
	return load(webhooks.WebhookSchema, all, r)
}

func (s *Server) loadDeliveries(r *http.Request) (any, error) {
	return s.heavyLoad(r, func() (any, error) {
		all, err := s.webhooks.AllDeliveries(r.Context(), caller(r), r.PathValue("id"))
		if err != nil {
			return nil, err
		}
		return load(webhooks.DeliverySchema, all, r)
	})
}

// load runs a load query (spec 1 §7.6) over records: a bare result, or all its failures in one
// 400.
func load[T any](schema loadquery.Schema[T], records []T, r *http.Request) (any, error) {
	res, fs := loadquery.Load(schema, records, r.URL.Query())
	if len(fs) > 0 {
		return nil, apierr.Invalid(fs...)
	}
	return bare{data: res}, nil
}

func (s *Server) listEvents(r *http.Request) (any, error) {
	page, size, err := paging(r, webhooks.PageSizeDefault, webhooks.PageSizeMax)
	if err != nil {
		return nil, err
	}
	f := webhooks.EventFilter{Page: page, Size: size}
	f.Type, _ = query(r, "type")
	f.RelatedObjectID, _ = query(r, "relatedObjectId")
	f.From, _ = query(r, "from")
	f.To, _ = query(r, "to")
	return s.webhooks.ListEvents(r.Context(), caller(r), f)
}

func (s *Server) getEvent(r *http.Request) (any, error) {
	return s.webhooks.GetEvent(r.Context(), caller(r), r.PathValue("id"))
}

func (s *Server) resendEvent(r *http.Request) (any, error) {
	var in api.EventResend
	if err := decodeBody(r, &in, true); err != nil {
		return nil, err
	}
	out, err := s.webhooks.Resend(r.Context(), caller(r), r.PathValue("id"), in)
	return reply{http.StatusAccepted, out}, err
}

func (s *Server) triggerEvent(r *http.Request) (any, error) {
	var in api.EventTrigger
	if err := decodeBody(r, &in, true); err != nil {
		return nil, err
	}
	out, err := s.webhooks.Trigger(r.Context(), caller(r), in)
	return reply{http.StatusAccepted, out}, err
}
