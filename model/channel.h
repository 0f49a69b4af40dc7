/* A point-to-point channel: MPI matches messages in order per source,
 * destination, communicator and tag. Used as a hash-table key by the replay
 * (one mailbox per channel) and by the wait-state analysis. */
#ifndef TS_CHANNEL_H
#define TS_CHANNEL_H

#include <glib.h>
#include <string.h>
#include "model/hash.h"

typedef struct {
  guint32 src, dst;          /* world ranks */
  guint32 comm;
  gint32 tag;
} TsChannel;

static inline guint
ts_channel_hash (gconstpointer p)
{
  const TsChannel *k = p;
  return ts_hash_mix (ts_hash_mix (ts_hash_mix (ts_hash_mix (0, k->src), k->dst), k->comm),
                      (guint32) k->tag);
}

static inline gboolean
ts_channel_equal (gconstpointer a, gconstpointer b)
{
  return memcmp (a, b, sizeof (TsChannel)) == 0;
}

#endif
