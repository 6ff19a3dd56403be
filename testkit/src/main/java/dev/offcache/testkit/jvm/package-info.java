/**
 * Running code in a child JVM, for tests that kill a process.
 */
package dev.offcache.testkit.jvm;
