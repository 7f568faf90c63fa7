package dev.ferry;

import java.time.Instant;

/**
 * One backup of a {@link Backups} directory, as RocksDB's backup engine lists it.
 *
 * @param id the backup's id: ids start at 1 and grow with each backup
 * @param timestamp when the backup was made (whole seconds)
 * @param size the bytes of its files (files shared with other backups included)
 * @param fileCount the number of its files
 */
public record BackupInfo(int id, Instant timestamp, long size, int fileCount) {
}
