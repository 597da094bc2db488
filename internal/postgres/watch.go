package postgres

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// KeysChannel is the NOTIFY channel on which a change of an API key
// (created, suspended, revoked, limits changed) announces the key's prefix.
const KeysChannel = "fragrance_keys"

// Timings of the watches. A watch that hears nothing for watchIdle checks
// its connection with a query, so a connection lost without a word (a
// network partition) is noticed within watchIdle + watchPingTimeout rather
// than when TCP keep-alives give up minutes later.
const (
	watchIdle        = 15 * time.Second
	watchPingTimeout = 5 * time.Second
	watchRetryMin    = 500 * time.Millisecond
	watchRetryMax    = 15 * time.Second
)

// WatchCatalogue calls onChange with the catalogue version whenever an
// import on any replica (or a `fragrance import` run) commits a change. It
// LISTENs on a connection of its own, outside the pool, and blocks until
// ctx ends, then returns nil. When the connection drops it reconnects with
// backoff; once listening again — and once at the first start — it calls
// onChange with the current version, since a notification may have been
// missed meanwhile, so onChange must tolerate a version it has already
// seen (the loader compares it with the one it holds). Calls are made one
// at a time from the watching goroutine.
func (d *DB) WatchCatalogue(ctx context.Context, onChange func(version int64)) error {
	last := int64(-1)
	return d.watch(ctx, CatalogueChannel, func(ctx context.Context, conn *pgx.Conn, _ string, resync bool) error {
		// The payload carries the version, but the channel is shared by
		// every schema of the database: read this schema's version instead.
		var v int64
		if err := conn.QueryRow(ctx, `SELECT value FROM meta WHERE key = 'catalogue_version'`).Scan(&v); err != nil {
			return err
		}
		if resync || v != last {
			last = v
			onChange(v)
		}
		return nil
	})
}

// WatchKeys calls onChange with the prefix of each API key changed on any
// replica, so caches can drop or refresh their copy at once. Like
// WatchCatalogue it blocks until ctx ends and reconnects by itself; after
// each (re)connection it calls onChange("") meaning "any key may have
// changed while nobody listened": refresh everything (KeysChangedSince).
// A prefix may also come from another schema sharing the database; a
// refresh of a key that did not change is harmless.
func (d *DB) WatchKeys(ctx context.Context, onChange func(prefix string)) error {
	return d.watch(ctx, KeysChannel, func(_ context.Context, _ *pgx.Conn, payload string, resync bool) error {
		if resync {
			payload = ""
		}
		onChange(payload)
		return nil
	})
}

// NotifyKeyChange tells every replica's WatchKeys that the key with this
// prefix changed. The key store's own changes notify by themselves, in the
// transaction that makes them; this is for changes made some other way.
func (d *DB) NotifyKeyChange(ctx context.Context, prefix string) error {
	if _, err := d.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, KeysChannel, prefix); err != nil {
		return fail("notify key change", err)
	}
	return nil
}

// notifyHandler handles one notification on conn, or (resync) the state
// after connecting. An error drops the connection and reconnects.
type notifyHandler func(ctx context.Context, conn *pgx.Conn, payload string, resync bool) error

// watch runs listen until ctx ends, reconnecting with jittered exponential
// backoff after each failure.
func (d *DB) watch(ctx context.Context, channel string, handle notifyHandler) error {
	delay := watchRetryMin
	lost := false
	for {
		listening, err := d.listen(ctx, channel, handle, lost)
		if ctx.Err() != nil {
			return nil
		}
		if listening {
			delay = watchRetryMin
		}
		lost = true
		wait := delay/2 + rand.N(delay/2+1)
		d.log.Warn("database watch lost its connection; reconnecting", "channel", channel, "in", wait.Round(time.Millisecond).String(), "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		delay = min(2*delay, watchRetryMax)
	}
}

// listen connects, LISTENs on channel, resynchronises through handle and
// then hands it every notification until the connection fails. It reports
// whether it got as far as listening.
func (d *DB) listen(ctx context.Context, channel string, handle notifyHandler, reconnect bool) (bool, error) {
	conn, err := pgx.ConnectConfig(ctx, d.pool.Config().ConnConfig.Copy())
	if err != nil {
		return false, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), watchPingTimeout)
		defer cancel()
		conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return false, err
	}
	if d.onListen != nil {
		d.onListen(channel, conn.PgConn().PID())
	}
	if reconnect {
		d.log.Info("database watch reconnected", "channel", channel)
	}
	if err := handle(ctx, conn, "", true); err != nil {
		return true, err
	}
	for {
		n, err := waitNotification(ctx, conn)
		if err != nil {
			return true, err
		}
		if n == nil || n.Channel != channel {
			continue
		}
		if err := handle(ctx, conn, n.Payload, false); err != nil {
			return true, err
		}
	}
}

// waitNotification waits up to watchIdle for a notification. When none
// comes it checks the connection with an empty query and returns nil, nil
// if it still answers.
func waitNotification(ctx context.Context, conn *pgx.Conn) (*pgconn.Notification, error) {
	wctx, cancel := context.WithTimeout(ctx, watchIdle)
	n, err := conn.WaitForNotification(wctx)
	cancel()
	if err == nil {
		return n, nil
	}
	if ctx.Err() != nil || !errors.Is(wctx.Err(), context.DeadlineExceeded) || conn.IsClosed() {
		return nil, err
	}
	// A timeout leaves the connection usable: ask it whether it is alive.
	pctx, cancel := context.WithTimeout(ctx, watchPingTimeout)
	defer cancel()
	if err := conn.Ping(pctx); err != nil {
		return nil, err
	}
	return nil, nil
}
