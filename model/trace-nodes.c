#include <config.h>

#include "model/trace-private.h"

#include <string.h>

static OTF2_CallbackCode
on_tree_node (void *ud, OTF2_SystemTreeNodeRef self, OTF2_StringRef name, OTF2_StringRef klass,
              OTF2_SystemTreeNodeRef parent)
{
  GHashTable *strings;
  TsRawTreeNode *n = g_new (TsRawTreeNode, 1);
  *n = (TsRawTreeNode) { name, klass, parent, 0 };
  g_hash_table_insert (ts_def_state_tree_nodes (ud, &strings), GUINT_TO_POINTER (self + 1), n);
  return OTF2_CALLBACK_SUCCESS;
}

/* A node's cores (TS_TRACE_NODE_CORES); other properties are not used. */
static OTF2_CallbackCode
on_tree_node_property (void *ud, OTF2_SystemTreeNodeRef node, OTF2_StringRef name, OTF2_Type type,
                       OTF2_AttributeValue value)
{
  GHashTable *strings;
  GHashTable *nodes = ts_def_state_tree_nodes (ud, &strings);
  TsRawTreeNode *n = g_hash_table_lookup (nodes, GUINT_TO_POINTER (node + 1));
  const char *key = g_hash_table_lookup (strings, GUINT_TO_POINTER (name + 1));
  if (n && key && strcmp (key, TS_TRACE_NODE_CORES) == 0)
    {
      guint64 v = type == OTF2_TYPE_UINT32 ? value.uint32
                  : type == OTF2_TYPE_UINT64 ? value.uint64
                  : type == OTF2_TYPE_INT32 && value.int32 > 0 ? (guint64) value.int32
                  : type == OTF2_TYPE_INT64 && value.int64 > 0 ? (guint64) value.int64 : 0;
      n->cores = v <= G_MAXUINT32 ? (guint32) v : 0;
    }
  return OTF2_CALLBACK_SUCCESS;
}

void
ts_raw_nodes_register (OTF2_GlobalDefReaderCallbacks *cbs)
{
  OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback (cbs, on_tree_node);
  OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodePropertyCallback (cbs, on_tree_node_property);
}

static gboolean
has_class (GHashTable *strings, const TsRawTreeNode *n, const char *klass)
{
  const char *k = g_hash_table_lookup (strings, GUINT_TO_POINTER (n->klass + 1));
  return k && g_ascii_strcasecmp (k, klass) == 0;
}

/* The nearest node of class "node" from @ref1 (a tree node's ref + 1) up,
 * or 0. The walk is bounded: a corrupted tree may loop. */
static guint
node_above (GHashTable *strings, GHashTable *tree_nodes, guint ref1)
{
  for (guint depth = 0; ref1 && depth < 64; depth++)
    {
      TsRawTreeNode *n = g_hash_table_lookup (tree_nodes, GUINT_TO_POINTER (ref1));
      if (!n)
        return 0;
      /* A root is the machine, not a host: tracesim-record before 0.1.1
       * wrote its one root with class "node", whatever the hosts were. */
      if (has_class (strings, n, "node") && n->parent != OTF2_UNDEFINED_SYSTEM_TREE_NODE)
        return ref1;
      ref1 = n->parent == OTF2_UNDEFINED_SYSTEM_TREE_NODE ? 0 : n->parent + 1;
    }
  return 0;
}

/* The node above @group, or 0. */
static guint
node_of_group (GHashTable *strings, GHashTable *tree_nodes, GHashTable *group_parents,
               OTF2_LocationGroupRef group)
{
  return node_above (strings, tree_nodes,
                     GPOINTER_TO_UINT (g_hash_table_lookup (group_parents, GUINT_TO_POINTER (group + 1))));
}

/* Each node's cores: its TS_TRACE_NODE_CORES property, else the tree nodes
 * of class "core" under it (Score-P's hardware topology), else 0. */
static void
resolve_cores (TsTrace *t, GHashTable *strings, GHashTable *tree_nodes, GHashTable *index_of)
{
  t->node_cores = g_new0 (guint32, t->node_names->len);
  g_autofree guint32 *counted = g_new0 (guint32, t->node_names->len);
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, tree_nodes);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      const TsRawTreeNode *n = value;
      guint index1 = GPOINTER_TO_UINT (g_hash_table_lookup (index_of, key));
      if (index1 && n->cores)
        t->node_cores[index1 - 1] = n->cores;
      if (!has_class (strings, n, "core") || n->parent == OTF2_UNDEFINED_SYSTEM_TREE_NODE)
        continue;
      index1 = GPOINTER_TO_UINT (g_hash_table_lookup (
        index_of, GUINT_TO_POINTER (node_above (strings, tree_nodes, n->parent + 1))));
      if (index1)
        counted[index1 - 1]++;
    }
  for (guint i = 0; i < t->node_names->len; i++)
    if (!t->node_cores[i])
      t->node_cores[i] = counted[i];
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
  resolve_cores (t, strings, tree_nodes, index_of);
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

guint
ts_trace_node_cores (const TsTrace *t, guint node)
{
  return t->rank_node && t->node_cores && node < t->node_names->len ? t->node_cores[node] : 0;
}

gboolean
ts_trace_time_shared (const TsTrace *t)
{
  guint n = ts_trace_n_nodes (t);
  if (n == 0)
    return FALSE;
  /* Every thread of a rank runs on its node: 2 ranks of 2 threads on 2
   * cores time-share them. */
  g_autofree guint *ranks = g_new0 (guint, n);
  for (guint r = 0; r < t->n_ranks; r++)
    ranks[t->rank_node[r]] += ts_trace_rank_n_threads (t, r);
  for (guint i = 0; i < n; i++)
    if (t->node_cores[i] && ranks[i] > t->node_cores[i])
      return TRUE;
  return FALSE;
}

gboolean
ts_trace_cores_known (const TsTrace *t)
{
  guint n = ts_trace_n_nodes (t);
  for (guint i = 0; i < n; i++)
    if (!t->node_cores[i])
      return FALSE;
  return n > 0;
}

gboolean
ts_trace_cores_own (const TsTrace *t)
{
  return ts_trace_cores_known (t) && !ts_trace_time_shared (t);
}

gint
ts_trace_ranks_apart (const TsTrace *t, guint a, guint b)
{
  if (!t->rank_node || a >= t->n_ranks || b >= t->n_ranks)
    return -1;
  return t->rank_node[a] != t->rank_node[b];
}
