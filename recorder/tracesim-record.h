/* tracesim-record: user regions in traces written by libtracesim-record.
 *
 *   ts_region_begin ("solve");
 *   ...
 *   ts_region_end ("solve");
 *
 * writes an Enter / Leave of the user region "solve" (OTF2 paradigm USER)
 * into the calling rank's trace. Calls between MPI_Init and MPI_Finalize
 * are recorded from the thread that called MPI_Init, and from the threads
 * of an OpenMP team it forked (GCC's libgomp: each into its own location);
 * other calls do nothing. Regions still open at MPI_Finalize are closed there. @name is
 * copied; regions nest, and ts_region_end closes the innermost open region
 * of that name.
 *
 * Linking: a program that calls these links with -ltracesim-record (before
 * the MPI library); it then records whenever it runs, into $TS_RECORD_DIR
 * or ./tracesim-trace. A program that must also run without the recorder
 * looks the functions up instead, e.g.
 *   void (*begin) (const char *) = dlsym (RTLD_DEFAULT, "ts_region_begin");
 * and calls them only when they are found (under tracesim-record, which
 * preloads the library). Weak fallbacks do not work across shared
 * libraries: the dynamic linker binds a weak definition in the program
 * before the library's. */
#ifndef TRACESIM_RECORD_H
#define TRACESIM_RECORD_H

#ifdef __cplusplus
extern "C" {
#endif

void ts_region_begin (const char *name);
void ts_region_end (const char *name);

#ifdef __cplusplus
}
#endif

#endif
