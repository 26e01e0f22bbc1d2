// fold.h - folding rules: when findings with different signatures are one bug. Pure functions
// over signatures and blame results; the campaign glue applies them before recording.
//
//  - Culprit: a wrong result (DCF) is named by the first operator that goes wrong (blame.h),
//    not by every operator of its reduced model, nor by how its first bad output differs.
//  - Downstream: an MCF or IF whose reduced model holds a value the SUT computes wrong (its
//    shape or contents) is the bug of that wrong value: its signature becomes the culprit's DCF.
//  - Modes and oracles: the same culprit or the same error against the reference and against
//    noopt, or in several modes, is one bug; the modes seen are a property (Signature::modes),
//    and the signature's mode reads "any".
#pragma once

#include <optional>
#include <vector>

#include "triage/blame.h"
#include "triage/signature.h"

namespace nnfuzz {

/// What an error is named by when it fails only while an omitted optional input is written as an
/// empty name: leaving the node's trailing omitted inputs out makes it pass (see experiments.h).
inline constexpr const char* kOmittedInputExperiment =
    "fails only while a trailing omitted optional input is written as an empty name";

/// Whether a reduction step that fails with `candidate` still shows the bug of `target`: equal
/// signatures, or an OpenVINO conversion failure ("Conversion is failed for: A-<n>, B-<n>") that
/// names fewer of the same nodes. OpenVINO lists every node it could not convert, the ones fed by
/// a failed node too, so cutting a consumer away narrows the list: the bug is the node that stays.
bool stillTheBug(const Signature& candidate, const Signature& target);

/// The mode a folded signature names: the bug is the same in whichever mode shows it.
inline constexpr const char* kAnyMode = "any";

/// A DCF signature named by its culprit: operators and outputs give way to culprit.identity().
Signature culpritSignature(const Signature& dcf, const Culprit& culprit);

/// An MCF or IF signature folded into the wrong value its model holds (nullopt: unchanged).
Signature foldDownstream(const Signature& error, const std::optional<Culprit>& wrongValue);

/// An MCF or IF named by what an experiment found instead of by its words (each operator words
/// one frontend fault its own way): message := `finding`, crash frames dropped.
Signature namedByExperiment(const Signature& error, const std::string& finding);

/// The wrong value an error is folded into, from the blame of each mode that shows the error:
/// a culprit only when every mode names the same one (by identity). OpenCV's ENGINE_AUTO runs a
/// prefix on another engine than the whole model (its fallback), so a value wrong in one mode
/// need not be what fails the others; then the error stands as it is.
std::optional<Culprit> agreedCulprit(const std::vector<std::optional<Culprit>>& perMode);

/// The signature with mode and comparison folded: mode "any", against "reference", and the
/// mode it was seen in (as "<mode>" or "<mode> vs <against>") added to `modes`.
Signature foldModes(const Signature& s);

/// Folds equal signatures of one list into one each, merging their `modes`; first-seen order.
std::vector<Signature> mergeFolded(const std::vector<Signature>& signatures);

}  // namespace nnfuzz
