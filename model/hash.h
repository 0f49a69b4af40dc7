/* The one mixer behind every composite hash-table key (channels, messages,
 * collective instances, partitioned requests): fold each field into the
 * hash and spread it with Knuth's multiplicative constant (2^32 / golden
 * ratio), so that keys differing in any one field land apart. */
#ifndef TS_HASH_H
#define TS_HASH_H

#include <glib.h>

static inline guint
ts_hash_mix (guint hash, guint64 field)
{
  return (hash ^ (guint) (field ^ (field >> 32))) * 2654435761u;
}

#endif
