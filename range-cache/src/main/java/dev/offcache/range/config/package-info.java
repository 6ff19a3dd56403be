/**
 * Reading settings from the environment, and the error that names a bad setting.
 */
package dev.offcache.range.config;
