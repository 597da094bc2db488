package dashboard

import "net/http"

// Register hands each route of the dashboard to handle, with the name logs
// and metrics know it by: the dashboard's whole route table. Every route
// is behind the allow-list (gate); every route but the sign-in form's
// needs an admin session; every form is a POST behind
// http.CrossOriginProtection. The last two routes take every other path
// under /admin, with any method, to the 404 page behind the same gate, so
// that no answer (a 405 of the mux, say) tells that the dashboard is here.
func (d *Dashboard) Register(handle func(pattern, name string, h http.Handler)) {
	open := func(pattern, name string, h http.HandlerFunc) { handle(pattern, name, d.web.Secure(d.gate(h))) }
	get := func(pattern, name string, h func(http.ResponseWriter, *http.Request, operator)) {
		handle("GET "+pattern, name, d.web.Secure(d.gate(d.area.SignedIn(h))))
	}
	post := func(pattern, name string, h func(http.ResponseWriter, *http.Request, operator)) {
		handle("POST "+pattern, name, d.web.Secure(d.gate(d.area.OwnForms(d.area.SignedIn(h)))))
	}

	open("GET /admin/signin", "admin.signin", d.signInForm)
	handle("POST /admin/signin", "admin.signin.post", d.web.Secure(d.gate(d.area.OwnForms(http.HandlerFunc(d.signIn)))))
	post("/admin/signout", "admin.signout", d.signOut)
	get("/admin/totp", "admin.totp", d.totpForm)
	post("/admin/totp", "admin.totp.confirm", d.totpConfirm)

	get("/admin", "admin.overview", d.overview)

	get("/admin/keys", "admin.keys", d.keys)
	post("/admin/keys", "admin.keys.create", d.createKey)
	get("/admin/keys/{prefix}", "admin.key", d.withKey(d.key))
	post("/admin/keys/{prefix}/tier", "admin.key.tier", d.withKey(d.setTier))
	post("/admin/keys/{prefix}/limits", "admin.key.limits", d.withKey(d.setLimits))
	post("/admin/keys/{prefix}/suspend", "admin.key.suspend", d.withKey(d.suspend))
	post("/admin/keys/{prefix}/resume", "admin.key.resume", d.withKey(d.resume))
	post("/admin/keys/{prefix}/revoke", "admin.key.revoke", d.withKey(d.revoke))

	get("/admin/accounts", "admin.accounts", d.accounts)
	get("/admin/accounts/{id}", "admin.account", d.withAccount(d.account))
	post("/admin/accounts/{id}/disable", "admin.account.disable", d.withAccount(d.disableAccount))
	post("/admin/accounts/{id}/enable", "admin.account.enable", d.withAccount(d.enableAccount))
	post("/admin/accounts/{id}/release", "admin.account.release", d.withAccount(d.releaseHold))

	get("/admin/tier-requests", "admin.tierrequests", d.tierRequests)
	post("/admin/tier-requests/{id}/approve", "admin.tierrequest.approve", d.approve)
	post("/admin/tier-requests/{id}/decline", "admin.tierrequest.decline", d.decline)

	get("/admin/abuse", "admin.abuse", d.abuse)
	post("/admin/abuse/seen", "admin.abuse.seen", d.signalsSeen)

	get("/admin/audit", "admin.audit", d.audit)

	open("/admin", "admin.notfound", d.web.NotFoundPage)
	open("/admin/", "admin.notfound", d.web.NotFoundPage)
}
