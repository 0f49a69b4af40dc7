/* A point-to-point channel: MPI matches messages in order per source,
 * destination, communicator and tag. Used as a hash-table key by the replay
 * (one mailbox per channel) and by the wait-state analysis. */
#ifndef TS_CHANNEL_H
#define TS_CHANNEL_H

#include <glib.h>
#include <string.h>

typedef struct {
  guint32 src, dst;          /* world ranks */
  guint32 comm;
  gint32 tag;
} TsChannel;

static inline guint
ts_channel_hash (gconstpointer p)
{
  const TsChannel *k = p;
  return k->src * 2654435761u ^ k->dst * 40503u ^ k->comm * 97u ^ (guint) k->tag;
}

static inline gboolean
ts_channel_equal (gconstpointer a, gconstpointer b)
{
  return memcmp (a, b, sizeof (TsChannel)) == 0;
}

#endif
