/**
 * The L2 server's command line: its options, their environment defaults and checks, the launcher's memory defaults,
 * and the program that starts and stops the server.
 */
package dev.offcache.server.cli;
