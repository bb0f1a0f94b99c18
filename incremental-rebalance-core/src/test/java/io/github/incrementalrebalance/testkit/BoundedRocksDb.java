package io.github.incrementalrebalance.testkit;

import java.util.Map;

import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBufferManager;

/**
 * Caps the memory of every RocksDB store in the JVM: many instances with many tasks share one test JVM, and RocksDB's
 * defaults give each store its own 64 MB write buffers.
 */
public final class BoundedRocksDb implements RocksDBConfigSetter {

	private static final long CACHE_BYTES = 32L * 1024 * 1024;

	private static final long WRITE_BUFFER_BYTES = 16L * 1024 * 1024;

	private static final Cache cache;

	private static final WriteBufferManager writeBufferManager;

	static {
		RocksDB.loadLibrary();
		cache = new LRUCache(CACHE_BYTES, -1, false, 0.1);
		writeBufferManager = new WriteBufferManager(WRITE_BUFFER_BYTES, cache);
	}

	@Override
	public void setConfig(String storeName, Options options, Map<String, Object> configs) {
		BlockBasedTableConfig tableConfig = (BlockBasedTableConfig) options.tableFormatConfig();
		tableConfig.setBlockCache(cache);
		tableConfig.setCacheIndexAndFilterBlocks(true);
		options.setWriteBufferManager(writeBufferManager);
		options.setWriteBufferSize(2L * 1024 * 1024);
		options.setMaxWriteBufferNumber(2);
		options.setTableFormatConfig(tableConfig);
	}

	@Override
	public void close(String storeName, Options options) {
		// the cache and the write buffer manager are shared by every store of the JVM: never closed
	}

}
