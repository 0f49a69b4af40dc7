/* Trace scripts: small OTF2 traces written as readable text.
 *
 * A script lists the events of every rank with their times, so that a test
 * can state a trace and derive its expected replay by hand. Format, one item
 * per line, `#` starts a comment, words are separated by blanks:
 *
 *   ranks 2 [threads=K]       first line: the number of ranks (world communicator),
 *                             and the threads of each (CPU-thread locations of its
 *                             process, as Score-P writes them; default 1)
 *   comm row 0 1              communicator "row" of world ranks 0 1; ids 1, 2, ...
 *   node vm-a 0 1 [cores=2]   ranks 0 1 ran on host "vm-a" (a system tree node of
 *                             class "node", as Score-P writes; all ranks or none),
 *                             which had 2 cores (as tracesim-record writes it)
 *                             in order of definition, "world" is id 0
 *   metric waiting s          metric "waiting" with unit "s" (unit optional)
 *   creator Score-P 8.0       the tracer imitated: collective bytes count as it
 *                             does (ts_collective_block); default: one rank's buffer
 *   RANK TIME EVENT ARGS...   an event of world rank RANK at TIME seconds
 *   RANK.K TIME EVENT ARGS... an event of thread K of the rank (0: its own)
 *
 * Events (peers and roots are ranks in the communicator; comm=world, tag=0,
 * bytes=0, root=none, sent=0, recv=0 by default):
 *   enter NAME                region NAME ("MPI_*" is an MPI region, others USER)
 *   leave [NAME]              leave the innermost open region (NAME must match it)
 *   send PEER [comm=C] [tag=T] [bytes=B]
 *   recv PEER [comm=C] [tag=T] [bytes=B]
 *   isend PEER [comm=C] [tag=T] [bytes=B] req=R
 *   isend_complete req=R
 *   irecv_request req=R
 *   irecv PEER [comm=C] [tag=T] [bytes=B] req=R
 *                             PEER raw:N writes the uint32 N unchecked, as
 *                             tracers write MPI_PROC_NULL or a garbage status
 *   request_test req=R
 *   request_cancelled req=R   MPI_Cancel took effect (in the wait that completes R)
 *   coll_begin
 *   coll_end OP [comm=C] [root=R|none] [sent=B] [recv=B]   OP from collectives.def
 *   icoll_request req=R       a non-blocking collective is posted (MPI_Iallreduce...)
 *   icoll_complete OP [comm=C] [root=R|none] [sent=B] [recv=B] req=R   and completes
 *   psend_init PEER [comm=C] [tag=T] [bytes=B] partitions=N req=R   MPI-4 partitioned
 *   precv_init PEER [comm=C] [tag=T] [bytes=B] partitions=N req=R   (doc/event-model.md)
 *   psend_request req=R | precv_request req=R        MPI_Start of a partitioned request
 *   pready P req=R | parrived P req=R | ptested P req=R   partition P
 *   psend_complete req=R | precv_complete req=R      its completion
 * Partitioned events are written as given, unchecked (bad input for tests).
 *   metric NAME VALUE
 *   lock ID acquire|release   an OpenMP lock (a critical section, omp_set_lock)
 *                             taken or given back, unchecked
 *
 * Lines of different ranks may interleave; the times of one rank must not
 * decrease. A request id must not be reused while outstanding, and completing
 * or testing a request needs it outstanding (irecv completes an irecv_request,
 * isend_complete an isend). Every region entered must be left and every
 * coll_begin ended by the end of the script.
 *
 * Error contract: functions return FALSE and set @error (G_IO_ERROR,
 * G_IO_ERROR_INVALID_DATA for script errors) with a "FILE:LINE: message"
 * text. On failure no archive is left at @dir (an older one stays intact). */
#ifndef TS_SCRIPT_H
#define TS_SCRIPT_H

#include <glib.h>

G_BEGIN_DECLS

/* Write the archive described by @text to <dir>/<name>.otf2. @origin names the
 * script in error messages. Nothing is kept of the arguments. */
gboolean ts_script_load_string (const char *text, const char *origin, const char *dir,
                                const char *name, GError **error);
/* Same, reading the script from @path. */
gboolean ts_script_load_file (const char *path, const char *dir, const char *name,
                              GError **error);

G_END_DECLS

#endif
