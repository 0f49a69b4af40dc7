/* The streams' cursors in time order (waitstates-private.h). */
#include <config.h>

#include "analysis/waitstates-private.h"

static gint
by_next_time (gconstpointer a, gconstpointer b, gpointer unused)
{
  const Cursor *x = a, *y = b;
  if (x->next.time != y->next.time)
    return x->next.time < y->next.time ? -1 : 1;
  return x->stream < y->stream ? -1 : x->stream > y->stream;
}

void
ts_cursor_heap_sift_down (TsCursorHeap *h, guint i)
{
  for (;;)
    {
      guint least = i, l = 2 * i + 1, r = l + 1;
      if (l < h->n && by_next_time (h->items[l], h->items[least], NULL) < 0)
        least = l;
      if (r < h->n && by_next_time (h->items[r], h->items[least], NULL) < 0)
        least = r;
      if (least == i)
        return;
      Cursor *t = h->items[i];
      h->items[i] = h->items[least];
      h->items[least] = t;
      i = least;
    }
}

void
ts_cursor_heap_push (TsCursorHeap *h, Cursor *cu)
{
  guint i = h->n++;
  h->items[i] = cu;
  while (i > 0 && by_next_time (h->items[i], h->items[(i - 1) / 2], NULL) < 0)
    {
      Cursor *t = h->items[i];
      h->items[i] = h->items[(i - 1) / 2];
      h->items[(i - 1) / 2] = t;
      i = (i - 1) / 2;
    }
}

