/**
 * What the nodes run: the commented Lua scripts under {@code dev/redlock/lua} ({@link
 * dev.redlock.internal.script.LuaScript}, called by SHA with a fallback to the source after NOSCRIPT) and each lock
 * kind's keys and script arguments ({@link dev.redlock.internal.script.LockRef}).
 */
package dev.redlock.internal.script;
