/* The size of the definition chunks of an OTF2 archive tracesim writes.
 *
 * OTF2 refuses a definition record larger than a definition chunk
 * (INVALID_SIZE_GIVEN), and the largest record tracesim writes grows with the
 * ranks: the Group definition of MPI_COMM_WORLD (and of the locations) lists
 * every rank. Every OTF2 writer (model/archive_writer.c for ts-tracegen,
 * `tracesim extrapolate` and the predicted archive; the recorder) sizes its
 * definition chunks here, once, from the largest group it will write. */
#ifndef TS_MODEL_OTF2_CHUNK_H
#define TS_MODEL_OTF2_CHUNK_H

#include <glib.h>

/* The largest group ts_otf2_def_chunk_size can size a chunk for: the most
 * ranks an archive tracesim writes can have. */
#define TS_OTF2_MAX_GROUP_MEMBERS 4194291u

/* The smallest definition chunk size, a multiple of OTF2_CHUNK_SIZE_MIN
 * (256 KiB) and at least that, that holds a Group definition of
 * @max_group_members members whose values (world ranks, location ids) are
 * below @max_group_members. 0 when even OTF2_CHUNK_SIZE_MAX (16 MiB) cannot
 * hold it (more than TS_OTF2_MAX_GROUP_MEMBERS): the caller reports it. */
guint64 ts_otf2_def_chunk_size (guint64 max_group_members);

#endif
