#include <config.h>

#include "model/trace-private.h"

#include <string.h>

/* The node above @group: the nearest ancestor of class "node", or 0. The
 * walk is bounded: a corrupted tree may loop. */
static guint
node_of_group (GHashTable *strings, GHashTable *tree_nodes, GHashTable *group_parents,
               OTF2_LocationGroupRef group)
{
  guint ref1 = GPOINTER_TO_UINT (g_hash_table_lookup (group_parents, GUINT_TO_POINTER (group + 1)));
  for (guint depth = 0; ref1 && depth < 64; depth++)
    {
      TsRawTreeNode *n = g_hash_table_lookup (tree_nodes, GUINT_TO_POINTER (ref1));
      if (!n)
        return 0;
      const char *klass = g_hash_table_lookup (strings, GUINT_TO_POINTER (n->klass + 1));
      /* A root is the machine, not a host: tracesim-record before 0.1.1
       * wrote its one root with class "node", whatever the hosts were. */
      if (klass && g_ascii_strcasecmp (klass, "node") == 0
          && n->parent != OTF2_UNDEFINED_SYSTEM_TREE_NODE)
        return ref1;
      ref1 = n->parent == OTF2_UNDEFINED_SYSTEM_TREE_NODE ? 0 : n->parent + 1;
    }
  return 0;
}

void
ts_trace_resolve_nodes (TsTrace *t, GHashTable *strings, GHashTable *tree_nodes,
                        GHashTable *group_parents, const OTF2_LocationGroupRef *rank_groups)
{
  g_autoptr (GHashTable) index_of = g_hash_table_new (g_direct_hash, g_direct_equal);
  guint *rank_node = g_new (guint, t->n_ranks);
  for (guint r = 0; r < t->n_ranks; r++)
    {
      guint ref1 = node_of_group (strings, tree_nodes, group_parents, rank_groups[r]);
      if (!ref1)
        {
          /* One rank without a node: the trace does not say where ranks ran. */
          g_free (rank_node);
          g_ptr_array_set_size (t->node_names, 0);
          return;
        }
      gpointer index1 = g_hash_table_lookup (index_of, GUINT_TO_POINTER (ref1));
      if (!index1)
        {
          TsRawTreeNode *n = g_hash_table_lookup (tree_nodes, GUINT_TO_POINTER (ref1));
          const char *name = g_hash_table_lookup (strings, GUINT_TO_POINTER (n->name + 1));
          g_ptr_array_add (t->node_names, g_strdup (name ? name : "?"));
          index1 = GUINT_TO_POINTER (t->node_names->len);
          g_hash_table_insert (index_of, GUINT_TO_POINTER (ref1), index1);
        }
      rank_node[r] = GPOINTER_TO_UINT (index1) - 1;
    }
  t->rank_node = rank_node;
}

guint
ts_trace_n_nodes (const TsTrace *t)
{
  return t->rank_node ? t->node_names->len : 0;
}

const char *
ts_trace_node_name (const TsTrace *t, guint node)
{
  g_return_val_if_fail (node < t->node_names->len, NULL);
  return g_ptr_array_index (t->node_names, node);
}

guint
ts_trace_rank_node (const TsTrace *t, guint rank)
{
  g_return_val_if_fail (t->rank_node && rank < t->n_ranks, 0);
  return t->rank_node[rank];
}

gint
ts_trace_ranks_apart (const TsTrace *t, guint a, guint b)
{
  if (!t->rank_node || a >= t->n_ranks || b >= t->n_ranks)
    return -1;
  return t->rank_node[a] != t->rank_node[b];
}
