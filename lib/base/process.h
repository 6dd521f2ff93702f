/* Process-wide setup: every effect on the whole process (signal
 * dispositions, a thread of our own) happens here, in one explicit call at
 * the start of main(), before any other thread exists. Library code never
 * installs handlers or changes dispositions itself.
 *
 *   - SIGXFSZ is ignored: a write past the file size limit (ulimit -f, a
 *     full quota) then fails with EFBIG, which the writers report as one
 *     line (ERR_OUTPUT) after removing their temporary file, instead of the
 *     process being killed with the temporary file left behind.
 *   - SIGBUS gets a handler that lets readers under a file_guard (files.h)
 *     survive a mapped input truncated by another process; any other SIGBUS
 *     still kills the process as before.
 *   - SIGINT, SIGTERM and SIGHUP (each unless the process started with it
 *     ignored, as under nohup or in a background job) are blocked in every
 *     thread and taken by one thread of ours with sigwait(): it removes the
 *     pending temporary outputs (out_tmp_remove_all, under the registry's
 *     lock — no handler walks shared memory, nothing needs to be
 *     async-signal-safe) and then ends the process by the same signal, so
 *     the parent sees the usual status.
 *
 * Unit tests that need these call it too. A second call does nothing. */
#ifndef MSP_PROCESS_H
#define MSP_PROCESS_H

void process_setup(void);

#endif
