package portal

import (
	"net/http"

	"github.com/fragrance-data/fragrance/internal/web"
)

// message is what the message page shows: a heading, a text, and what the
// visitor can do next.
type message struct {
	Heading, Text string
	// Again shows the form that sends a new sign-in link.
	Again bool
	Form  signInForm
	// Back is a path to go on to, named BackText ("Back to the portal"
	// when empty).
	Back, BackText string
}

// message answers the message page with status.
func (p *Portal) message(w http.ResponseWriter, r *http.Request, status int, m message) {
	p.pages.Render(w, r, status, "message", web.Page{Title: title(m.Heading), NoIndex: true, Data: m})
}

// unavailable answers 503 when a store (or the mail, or a limiter) cannot
// answer: nothing was done, nobody is signed in, try again.
func (p *Portal) unavailable(w http.ResponseWriter, r *http.Request, err error) {
	p.log.ErrorContext(r.Context(), "portal: a store cannot answer", "err", err, "path", r.URL.Path)
	w.Header().Set("Retry-After", "5")
	p.message(w, r, http.StatusServiceUnavailable, message{Heading: "Try again in a moment",
		Text: "The portal cannot reach its records right now, so nothing was done. Try again in a few seconds.",
		Back: "/developer"})
}

// maxForm bounds a form's body: room for a use case of MaxUseCase
// characters of any script, percent-encoded (up to 12 bytes each).
const maxForm = 64 << 10

// readForm parses a POSTed form, or answers 400 and reports false.
func (p *Portal) readForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		p.message(w, r, http.StatusBadRequest, message{Heading: "Form not read",
			Text: "The form could not be read (too long, or not a form). Go back and send it again.", Back: "/developer"})
		return false
	}
	return true
}

// seeOther ends a POST by sending the browser to path (303), so a reload
// does not send the form again.
func seeOther(w http.ResponseWriter, r *http.Request, path string) {
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, path, http.StatusSeeOther)
}
