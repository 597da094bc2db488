package portal

import (
	"net/http"

	"github.com/fragrance-data/fragrance/internal/web/session"
)

// message is what the message page shows; its More, when set, is the
// form that sends a new sign-in link (a signInForm).
type message = session.Message

// message answers the message page with status.
func (p *Portal) message(w http.ResponseWriter, r *http.Request, status int, m message) {
	p.area.Message(w, r, status, m)
}

// unavailable answers 503 when a store (or the mail, or a limiter) cannot
// answer: nothing was done, nobody is signed in, try again.
func (p *Portal) unavailable(w http.ResponseWriter, r *http.Request, err error) {
	p.area.Unavailable(w, r, err)
}
