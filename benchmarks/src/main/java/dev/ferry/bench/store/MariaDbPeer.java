package dev.ferry.bench.store;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * MariaDB through JDBC (MariaDB Connector/J) on a server given by its URL: a table {@code kv (k
 * VARBINARY(511) PRIMARY KEY, v LONGBLOB)} in InnoDB with the server's defaults, made anew at open
 * (binary strings compare as unsigned bytes, so {@code ORDER BY k} is the other stores' order). A batch
 * is one transaction of batched {@code INSERT}s, a get one prepared {@code SELECT v FROM kv WHERE k = ?}
 * (autocommit), a scan one {@code SELECT k, v FROM kv ORDER BY k}.
 *
 * <p>Thread safety: one JDBC connection: one thread at a time.
 */
final class MariaDbPeer implements KvStore {
    private Connection conn;
    private final PreparedStatement select;
    private final PreparedStatement insert;

    MariaDbPeer(String url, String user, String password) {
        try {
            conn = DriverManager.getConnection(url, user, password);
            try (Statement s = conn.createStatement()) {
                s.execute("DROP TABLE IF EXISTS kv");
                s.execute("CREATE TABLE kv (k VARBINARY(511) NOT NULL PRIMARY KEY, v LONGBLOB NOT NULL) ENGINE=InnoDB");
            }
            select = conn.prepareStatement("SELECT v FROM kv WHERE k = ?");
            insert = conn.prepareStatement("INSERT INTO kv (k, v) VALUES (?, ?)");
        } catch (SQLException e) {
            throw new IllegalStateException("MariaDB at " + url + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return "mariadb";
    }

    @Override
    public boolean ordered() {
        return true;
    }

    @Override
    public void write(List<byte[]> keys, List<byte[]> values, int from, int to) {
        try {
            conn.setAutoCommit(false);
            for (int i = from; i < to; i++) {
                insert.setBytes(1, keys.get(i));
                insert.setBytes(2, values.get(i));
                insert.addBatch();
            }
            insert.executeBatch();
            conn.commit();
            conn.setAutoCommit(true);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public byte[] get(byte[] key) {
        try {
            select.setBytes(1, key);
            try (ResultSet r = select.executeQuery()) {
                return r.next() ? r.getBytes(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public long scan(Visitor visitor) {
        long n = 0;
        try (Statement s = conn.createStatement(); ResultSet r = s.executeQuery("SELECT k, v FROM kv ORDER BY k")) {
            while (r.next()) {
                n++;
                if (!visitor.visit(ByteBuffer.wrap(r.getBytes(1)).asReadOnlyBuffer(), ByteBuffer.wrap(r.getBytes(2)).asReadOnlyBuffer())) {
                    break;
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return n;
    }

    /** @return InnoDB's data and index length of the table (its own estimate, in pages, after ANALYZE TABLE), read at close */
    @Override
    public long storageBytes() {
        return storage;
    }

    private long storage = -1;

    @Override
    public void close() {
        if (conn == null) {
            return;
        }
        try (Statement s = conn.createStatement()) {
            s.execute("ANALYZE TABLE kv"); // brings InnoDB's size statistics up to date
            try (ResultSet r = s.executeQuery("SELECT data_length + index_length FROM information_schema.tables"
                    + " WHERE table_schema = DATABASE() AND table_name = 'kv'")) {
                if (r.next()) {
                    storage = r.getLong(1);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        } finally {
            try {
                conn.close();
            } catch (SQLException e) {
                // the connection is gone either way
            }
            conn = null;
        }
    }
}
