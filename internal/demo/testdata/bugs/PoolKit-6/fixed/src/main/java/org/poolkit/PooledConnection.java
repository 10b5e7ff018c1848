package org.poolkit;

import java.io.Closeable;

/** A pooled connection that returns itself to its pool on close. */
public class PooledConnection implements Closeable {
    private final ConnectionPool pool;
    private boolean closed;

    public PooledConnection(ConnectionPool pool) {
        this.pool = pool;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        pool.release(this);
    }

    public boolean isClosed() {
        return closed;
    }
}
