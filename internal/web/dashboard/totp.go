package dashboard

import (
	"encoding/base64"
	"errors"
	"html/template"
	"net/http"
	"strings"

	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/web"
)

// totpIssuer names the service in authenticator apps.
const totpIssuer = "Fragrance Data Service admin"

// recoveryCodes is how many recovery codes an enrolment gives.
const recoveryCodes = 10

// totpData is what the enrolment page shows.
type totpData struct {
	Enrolled     bool
	RecoveryLeft int
	// Secret is the new secret as text, QR the same as a QR code (a data:
	// URL of its SVG, so the page's policy treats it as an image).
	Secret string
	QR     template.URL
	Error  string
}

// totpForm is GET /admin/totp: a new second factor to enrol (its QR code,
// its secret as text, and a form to confirm it with a code), or that one
// is enrolled already.
func (d *Dashboard) totpForm(w http.ResponseWriter, r *http.Request, op operator) {
	if op.user.TOTPSecret != "" {
		d.render(w, r, op, http.StatusOK, totpView(totpData{Enrolled: true, RecoveryLeft: len(op.user.RecoveryHashes)}))
		return
	}
	d.renderTOTP(w, r, op, http.StatusOK, d.cfg.Credentials.NewTOTPSecret(), "")
}

func totpView(data totpData) view {
	return view{name: "totp", section: secTOTP, title: "Second factor",
		crumbs: []web.Crumb{{Name: "Second factor", Path: "/admin/totp"}}, body: data}
}

// renderTOTP shows the enrolment form of secret.
func (d *Dashboard) renderTOTP(w http.ResponseWriter, r *http.Request, op operator, status int, secret, problem string) {
	cr := d.cfg.Credentials
	svg, err := cr.QRCodeSVG(cr.TOTPURI(totpIssuer, op.user.Email, secret), "QR code of your second-factor secret")
	if err != nil {
		d.web.ServerError(w, r, errorf("draw a QR code", err))
		return
	}
	qr := template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(svg)))
	d.render(w, r, op, status, totpView(totpData{Secret: secret, QR: qr, Error: problem}))
}

// totpConfirm is POST /admin/totp: the secret is enrolled when the code
// its app shows is right; the recovery codes are shown, once.
func (d *Dashboard) totpConfirm(w http.ResponseWriter, r *http.Request, op operator) {
	if !d.area.ReadForm(w, r) {
		return
	}
	if op.user.TOTPSecret != "" {
		d.message(w, r, http.StatusConflict, message{Heading: "Second factor enrolled already",
			Text: "Your account has a second factor already, so nothing was changed.", Back: "/admin/totp", BackText: "Back"})
		return
	}
	secret := strings.TrimSpace(r.PostForm.Get("secret"))
	if !validTOTPSecret(secret) {
		d.message(w, r, http.StatusBadRequest, message{Heading: "Form not read",
			Text: "The form lost its secret: open the enrolment page again.", Back: "/admin/totp", BackText: "Enrol again"})
		return
	}
	code := strings.Join(strings.Fields(r.PostForm.Get("code")), "")
	step, ok := d.cfg.Credentials.MatchTOTP(secret, code, d.now())
	if !isTOTPCode(code) || !ok {
		d.renderTOTP(w, r, op, http.StatusUnprocessableEntity, secret,
			"That code is not right: type the six digits your app shows now for this secret.")
		return
	}
	// The code that enrols does not sign in after (nor an earlier one):
	// its step is spent first (one spent already is spent), then the
	// second factor stored.
	err := d.cfg.Admins.UseTOTPStep(r.Context(), op.user.ID, step)
	codes, hashes := d.cfg.Credentials.NewRecoveryCodes(recoveryCodes)
	u := op.user
	u.TOTPSecret, u.RecoveryHashes = secret, hashes
	if err == nil || errors.Is(err, admin.ErrCodeUsed) {
		u, err = d.cfg.Admins.UpdateAdminUser(r.Context(), u)
	}
	if err != nil {
		d.unavailable(w, r, errorf("enrol a second factor", err))
		return
	}
	op.user = u
	if !d.record(w, r, op, "user.totp", userTarget(u.ID), "enrolled by the admin", "second factor enrolled; recovery codes made") {
		return
	}
	d.render(w, r, op, http.StatusOK, view{name: "codes", section: secTOTP, title: "Recovery codes",
		crumbs: []web.Crumb{{Name: "Second factor", Path: "/admin/totp"}}, body: codes})
}

// validTOTPSecret reports whether s has the shape of a secret the form
// was given: unpadded base32 of 16 to 64 characters.
func validTOTPSecret(s string) bool {
	if len(s) < 16 || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}
