// graph_gen.h - the graph-based generator of Luo et al. (ICSE'21 §III-F, §III-G): a random
// digraph (WS or RN, graph_models.h), a block from the corpus on every node whose in-degree
// the block takes, the block's inputs bound to its predecessors' results and aligned by the
// shapes & parameters calculator (align.h, padding.h), and the six mutations.
//
// A model is made in this order: draw the graph model, n, k, p and the mutation rate r
// (from the config's list); mutate the digraph's edges (GEA adds ceil(E r), GER removes
// floor(E r)); draw the model input's type and, with probability r, mutate its shape
// (TSM); then, for each node in index order (a topological order), draw a block (subgraph
// recipes get BNA / BNR with probability r each) and place it (block_place.h), re-drawing
// one of its attributes with probability r (PM). A node without predecessors reads the
// model input. A block that cannot be used (unstable or non-finite results) is replaced by
// another draw, never the model; results nobody reads are the model's outputs.
#pragma once

#include <span>

#include "gen/block_corpus.h"
#include "gen/generator.h"

namespace nnfuzz {

/// Generates one model whose digraph nodes draw their blocks from `preferred` (indices into
/// corpus.blocks()) where a node's in-degree allows, each preferred block placed at least
/// once when some node can hold it, the rest from the whole corpus by the config's weights.
/// Empty `preferred`: the plain generator.
GeneratedCase generateGraphModel(const GenConfig& config, const BlockCorpus& corpus, std::span<const int> preferred,
                                 Rng& rng);

/// The block corpus the config names (graph.blocks_file, or the built-in config/blocks.json).
const BlockCorpus& graphCorpus(const GenConfig& config);

}  // namespace nnfuzz
