package portal

import (
	"net/http"
	"strings"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/web"
)

// accountData is what /developer/account shows.
type accountData struct {
	Email     string
	CreatedAt time.Time
	Error     string
}

// account is GET /developer/account: sign out everywhere, delete the
// account.
func (p *Portal) account(w http.ResponseWriter, r *http.Request, v visitor) {
	p.renderAccount(w, r, v, http.StatusOK, "")
}

func (p *Portal) renderAccount(w http.ResponseWriter, r *http.Request, v visitor, status int, problem string) {
	p.pages.Render(w, r, status, "account", web.Page{Title: p.area.Title("Your account"), NoIndex: true,
		Crumbs: []web.Crumb{{Name: "Developers", Path: "/developer"}, {Name: "Your account", Path: "/developer/account"}},
		Data:   accountData{Email: v.account.Email, CreatedAt: v.account.CreatedAt, Error: problem}})
}

// deleteAccount is POST /developer/account/delete, confirmed by typing the
// account's address: its keys are revoked (the Guard told at once), its
// address erased, its sessions ended; its keys' usage counts stay.
func (p *Portal) deleteAccount(w http.ResponseWriter, r *http.Request, v visitor) {
	if !p.area.ReadForm(w, r) {
		return
	}
	typed, err := account.NormalizeEmail(r.PostForm.Get("confirm"))
	if err != nil || !strings.EqualFold(typed, v.account.Email) {
		p.renderAccount(w, r, v, http.StatusUnprocessableEntity, "Type your email address, "+v.account.Email+", to confirm.")
		return
	}
	if err := p.cfg.Accounts.DeleteAccount(r.Context(), v.account.ID, p.now()); err != nil {
		p.unavailable(w, r, err)
		return
	}
	p.keysChanged()
	p.area.Forget(w)
	p.message(w, r, http.StatusOK, message{Heading: "Your account is deleted",
		Text: "Its keys are revoked and your address is erased. The counts of requests its keys made stay, with nothing that names you. " +
			"You can make a new account with the same address at any time.", Back: "/developer"})
}
