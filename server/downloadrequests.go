package server

import (
	"net/http"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/downloadrequests"
)

// downloadRequestRoutes are the bulk download requests the official client's downloadRequests
// service calls; the worker (downloadrequests.Worker) carries them out at the SAT.
func (s *Server) downloadRequestRoutes() {
	s.mux.Handle("GET /api/v4/download-requests", s.apiRoute(s.standard, s.listDownloadRequests))
	s.mux.Handle("POST /api/v4/download-requests", s.apiRoute(s.standard, s.createDownloadRequest))
	s.mux.Handle("GET /api/v4/download-requests/search", s.apiRoute(s.standard, s.searchDownloadRequests))
	s.mux.Handle("GET /api/v4/download-requests/{id}", s.apiRoute(s.standard, s.getDownloadRequest))
	s.mux.Handle("PUT /api/v4/download-requests/{id}", s.apiRoute(s.standard, s.updateDownloadRequest))
	s.mux.Handle("DELETE /api/v4/download-requests/{id}", s.apiRoute(s.standard, s.deleteDownloadRequest))
	s.mux.Handle("GET /api/v4/download-requests/{id}/xmls", s.apiRoute(s.standard, s.downloadRequestXMLs))
	s.mux.Handle("GET /api/v4/download-requests/{id}/meta-items", s.apiRoute(s.standard, s.downloadRequestMetadata))
	s.mux.Handle("GET /api/v4/download-requests/{id}/package", s.apiRoute(s.standard, s.downloadRequestPackage))
	s.mux.Handle("GET /api/v4/download-requests/{id}/raw-request", s.apiRoute(s.standard, s.downloadRequestRaw(false)))
	s.mux.Handle("GET /api/v4/download-requests/{id}/raw-response", s.apiRoute(s.standard, s.downloadRequestRaw(true)))
}

func (s *Server) listDownloadRequests(r *http.Request) (any, error) {
	page, size, err := paging(r, downloadrequests.DefaultPageSize, downloadrequests.MaxPageSize)
	if err != nil {
		return nil, err
	}
	return s.downloads.List(r.Context(), caller(r), page, size)
}

func (s *Server) createDownloadRequest(r *http.Request) (any, error) {
	var in api.DownloadRequestInput
	if err := decodeBody(r, &in, false); err != nil {
		return nil, err
	}
	return s.downloads.Create(r.Context(), caller(r), in)
}

func (s *Server) getDownloadRequest(r *http.Request) (any, error) {
	return s.downloads.Get(r.Context(), caller(r), r.PathValue("id"))
}

// updateDownloadRequest answers the client's update: no SAT parameter of a request changes
// (downloadrequests.Service.Update); the request answers unchanged.
func (s *Server) updateDownloadRequest(r *http.Request) (any, error) {
	var in api.DownloadRequestInput
	if err := decodeBody(r, &in, false); err != nil {
		return nil, err
	}
	return s.downloads.Update(r.Context(), caller(r), r.PathValue("id"), in)
}

// searchDownloadRequests answers the client's search and searchByDate (?createdAt=2025-01-31),
// paged like the list.
func (s *Server) searchDownloadRequests(r *http.Request) (any, error) {
	page, size, err := paging(r, downloadrequests.DefaultPageSize, downloadrequests.MaxPageSize)
	if err != nil {
		return nil, err
	}
	q := func(name string) string { v, _ := query(r, name); return v }
	return s.downloads.Search(r.Context(), caller(r), downloadrequests.Search{
		CreatedAt: q("createdAt"), DownloadRequestStatusID: q("downloadRequestStatusId"), DownloadTypeID: q("downloadTypeId"),
		SatQueryTypeID: q("satQueryTypeId"), DownloadRequestTypeID: q("downloadRequestTypeId"), DownloadRuleID: q("downloadRuleId"),
		RequesterTin: q("requesterTin"),
	}, page, size)
}

func (s *Server) deleteDownloadRequest(r *http.Request) (any, error) {
	if err := s.downloads.Delete(r.Context(), caller(r), r.PathValue("id")); err != nil {
		return nil, err
	}
	return true, nil
}

func (s *Server) downloadRequestXMLs(r *http.Request) (any, error) {
	page, size, err := paging(r, downloadrequests.DefaultItemPage, downloadrequests.MaxItemPage)
	if err != nil {
		return nil, err
	}
	return s.downloads.XMLs(r.Context(), caller(r), r.PathValue("id"), page, size)
}

func (s *Server) downloadRequestMetadata(r *http.Request) (any, error) {
	page, size, err := paging(r, downloadrequests.DefaultItemPage, downloadrequests.MaxItemPage)
	if err != nil {
		return nil, err
	}
	return s.downloads.MetadataItems(r.Context(), caller(r), r.PathValue("id"), page, size)
}

func (s *Server) downloadRequestPackage(r *http.Request) (any, error) {
	return s.downloads.Packages(r.Context(), caller(r), r.PathValue("id"))
}

func (s *Server) downloadRequestRaw(response bool) func(r *http.Request) (any, error) {
	return func(r *http.Request) (any, error) {
		return s.downloads.Raw(r.Context(), caller(r), r.PathValue("id"), response)
	}
}
