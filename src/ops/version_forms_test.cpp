// version_forms_test.cpp - at opset 17 (the canonical one), formAt skips the conversions for
// operators none of which acts there (Moves::actsAt17, later attributes and values): for every
// operator and many sampled nodes, the short way gives what the full way gives.
#include <gtest/gtest.h>

#include "ops/instantiate.h"
#include "ops/registry.h"
#include "ops/version_forms.h"

namespace nnfuzz {
namespace {

TEST(VersionForms, TheOpset17ShortcutMatchesTheFullForm) {
  const Limits limits;
  Rng rng(1717);
  int shortcuts = 0, compared = 0;
  for (const OpSpec* spec : allOps()) {
    if (!spec->bodies.empty() || !usableUnder(*spec, limits)) continue;
    for (int draw = 0; draw < 60; ++draw) {
      const Instantiation inst = instantiateOp(*spec, rng, limits, nullptr, 0.0);
      if (!inst.ok()) continue;
      OperandTypes types;
      OperandConstants constants;
      for (const Operand& op : inst.operands) {
        types.push_back(op.omitted ? nullptr : &op.type);
        constants.push_back(op.constant ? &*op.constant : nullptr);
      }
      const NodeView view{spec->name, types, constants, inst.attrs, inst.outputTypes.size()};
      const NodeForm full = formAt(view, 17);
      const NodeForm fast = formAt(view, 17, false);
      ++compared;
      if (!fast.nodesAttributes) continue;  // the full way was taken both times
      ++shortcuts;
      ASSERT_TRUE(full.ok()) << spec->name << ": " << full.error;
      EXPECT_EQ(full.op, fast.op);
      EXPECT_TRUE(full.attrs == inst.attrs) << spec->name << " changes its attributes at opset 17";
      ASSERT_EQ(full.inputs.size(), fast.inputs.size()) << spec->name;
      for (size_t k = 0; k < full.inputs.size(); ++k) {
        EXPECT_EQ(full.inputs[k].operand, fast.inputs[k].operand) << spec->name << " input " << k;
        EXPECT_FALSE(full.inputs[k].constant) << spec->name << " adds a constant at opset 17";
      }
    }
  }
  EXPECT_GT(compared, 5000);
  EXPECT_GT(shortcuts, compared / 2);
}

}  // namespace
}  // namespace nnfuzz
