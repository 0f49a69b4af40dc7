/* Definition chunk sizes from the largest Group definition (see otf2-chunk.h). */
#include <config.h>

#include "model/otf2-chunk.h"

#include <otf2/otf2.h>

/* OTF2 3.0 (OTF2_GlobalDefWriter_WriteGroup, OTF2_Buffer.h) asks a chunk for
 * the record's upper bound: 1 byte of record type, 1 + 8 bytes of record
 * length (data of 255 bytes or more), then the data, with each integer
 * compressed to one length byte and its significant bytes: self, name and
 * numberOfMembers (uint32, at most 5 bytes each), the pre-1.2 group type
 * (1), the members (uint64 each), groupType (1), paradigm (1) and
 * groupFlags (uint32, at most 5). */
#define GROUP_FIXED_BYTES (1 + 9 + 5 + 5 + 1 + 5 + 1 + 1 + 5)
/* A definition chunk starts with an 18-byte header (chunk type, endianness,
 * first and last record numbers as 8-byte words) and keeps 1 byte for its
 * END_OF_CHUNK mark: a record must be at most the chunk size less 19. */
#define CHUNK_OVERHEAD_BYTES (18 + 1)

guint64
ts_otf2_def_chunk_size (guint64 max_group_members)
{
  /* Members below max_group_members: the largest, compressed, is its
   * significant bytes plus the length byte (0 is the length byte alone). */
  guint64 largest = max_group_members > 0 ? max_group_members - 1 : 0;
  guint64 member_bytes = 1;
  for (guint64 v = largest; v != 0; v >>= 8)
    member_bytes++;
  guint64 need = max_group_members * member_bytes + GROUP_FIXED_BYTES + CHUNK_OVERHEAD_BYTES;
  if (need > OTF2_CHUNK_SIZE_MAX)
    return 0;
  /* Whole multiples of the minimum: a reader allocates chunks of this size,
   * so no more than the record needs. */
  guint64 size = (need + OTF2_CHUNK_SIZE_MIN - 1) / OTF2_CHUNK_SIZE_MIN * OTF2_CHUNK_SIZE_MIN;
  return MIN (size, OTF2_CHUNK_SIZE_MAX);
}
