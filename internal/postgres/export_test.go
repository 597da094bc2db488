package postgres

import "context"

// SetOnListen lets tests learn the server process of each watch connection,
// so they can cut it.
func SetOnListen(d *DB, f func(channel string, pid uint32)) { d.onListen = f }

// Terminate ends the server process pid, as a restart would.
func Terminate(ctx context.Context, d *DB, pid uint32) error {
	_, err := d.pool.Exec(ctx, `SELECT pg_terminate_backend($1)`, int32(pid))
	return err
}
