/**
 * Redlock nodes from the application's own Jedis clients: {@link dev.redlock.jedis.JedisNodeTransport}.
 */
package dev.redlock.jedis;
