//===- ChunkFrames.cpp - the quick code's chunk calls through memory ------===//
#include "ChunkFrames.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

namespace {

/// A scalar field of an aggregate type: the indices that reach it.
struct Field {
  SmallVector<unsigned, 4> path;
  Type *type;
};

/// The scalar fields of `type` in memory order (`type` itself if scalar).
void collectFields(Type *type, SmallVectorImpl<unsigned> &path,
                   SmallVectorImpl<Field> &fields) {
  if (auto *structType = dyn_cast<StructType>(type)) {
    for (unsigned i = 0, e = structType->getNumElements(); i < e; ++i) {
      path.push_back(i);
      collectFields(structType->getElementType(i), path, fields);
      path.pop_back();
    }
    return;
  }
  if (auto *arrayType = dyn_cast<ArrayType>(type)) {
    for (unsigned i = 0, e = arrayType->getNumElements(); i < e; ++i) {
      path.push_back(i);
      collectFields(arrayType->getElementType(), path, fields);
      path.pop_back();
    }
    return;
  }
  fields.push_back({SmallVector<unsigned, 4>(path.begin(), path.end()), type});
}

SmallVector<Field> getFields(Type *type) {
  SmallVector<Field> fields;
  SmallVector<unsigned, 4> path;
  collectFields(type, path, fields);
  return fields;
}

/// Field `path` of the aggregate `value`: read off the insertvalue chain
/// that built it (so that the chain dies), else extracted before `before`.
Value *getField(Value *value, ArrayRef<unsigned> path, Instruction *before) {
  while (!path.empty()) {
    if (auto *insert = dyn_cast<InsertValueInst>(value)) {
      ArrayRef<unsigned> inserted = insert->getIndices();
      size_t common = std::min(inserted.size(), path.size());
      if (!std::equal(inserted.begin(), inserted.begin() + common,
                      path.begin())) {
        value = insert->getAggregateOperand();
        continue;
      }
      // Inserted below the field: the field is a mix of two values.
      if (inserted.size() > path.size())
        break;
      value = insert->getInsertedValueOperand();
      path = path.drop_front(inserted.size());
      continue;
    }
    if (auto *constant = dyn_cast<Constant>(value)) {
      Constant *element = constant;
      for (unsigned index : path)
        if (element)
          element = element->getAggregateElement(index);
      if (element)
        return element;
    }
    break;
  }
  if (path.empty())
    return value;
  return ExtractValueInst::Create(value, path, "", before->getIterator());
}

/// Whether every use of `aggregate` is an extractvalue, and of an
/// aggregate field, every use of that too.
bool isOnlyExtracted(Value *aggregate) {
  return llvm::all_of(aggregate->users(), [](User *user) {
    auto *extract = dyn_cast<ExtractValueInst>(user);
    return extract &&
           (!extract->getType()->isAggregateType() || isOnlyExtracted(extract));
  });
}

/// The field index in a results frame of each field path of the result.
using FieldIndex = DenseMap<ArrayRef<unsigned>, unsigned>;

/// The chunk rewriting of one module.
class ChunkFrames {
public:
  explicit ChunkFrames(Module &module)
      : module(module), context(module.getContext()),
        pointerType(PointerType::getUnqual(module.getContext())) {}

  bool rewriteChunk(Function &chunk);
  void splitAggregateStores(Function &function);

private:
  /// Replaces each extractvalue of `aggregate` (field `path` of the chunk's
  /// result) with a load of the field from `results`, a frame of type
  /// `resultsType` whose fields `fieldIndex` numbers.
  void loadExtractedFields(Value *aggregate, SmallVectorImpl<unsigned> &path,
                           Value *results, StructType *resultsType,
                           const FieldIndex &fieldIndex);

  Module &module;
  LLVMContext &context;
  PointerType *pointerType;
};

} // namespace

bool ChunkFrames::rewriteChunk(Function &chunk) {
  if (chunk.isDeclaration() || !chunk.hasLocalLinkage() || chunk.isVarArg() ||
      !chunk.hasFnAttribute("mpt-chunk") || !chunk.hasOneUse())
    return false;
  auto *call = dyn_cast<CallInst>(chunk.user_back());
  if (!call || call->getCalledOperand() != &chunk)
    return false;
  Type *resultType = chunk.getReturnType();
  bool aggregateResult = resultType->isAggregateType();
  if (aggregateResult && !isOnlyExtracted(call))
    return false;

  FunctionType *type = chunk.getFunctionType();
  auto *argumentsType = StructType::get(context, type->params());
  SmallVector<Field> fields;
  if (!resultType->isVoidTy())
    fields = getFields(resultType);
  SmallVector<Type *> fieldTypes;
  FieldIndex fieldIndex;
  for (auto [index, field] : llvm::enumerate(fields)) {
    fieldTypes.push_back(field.type);
    fieldIndex[field.path] = index;
  }
  auto *resultsType = StructType::get(context, fieldTypes);

  // The chunk's body, moved into a function of (arguments, results).
  Function *framed = Function::Create(
      FunctionType::get(Type::getVoidTy(context), {pointerType, pointerType},
                        /*isVarArg=*/false),
      chunk.getLinkage(), chunk.getAddressSpace(), "", &module);
  framed->takeName(&chunk);
  framed->setAttributes(AttributeList::get(
      context, chunk.getAttributes().getFnAttrs(), AttributeSet(), {}));
  framed->setCallingConv(chunk.getCallingConv());
  framed->setVisibility(chunk.getVisibility());
  framed->setDSOLocal(chunk.isDSOLocal());
  framed->copyMetadata(&chunk, 0);
  framed->splice(framed->end(), &chunk);
  Argument *arguments = framed->getArg(0);
  Argument *results = framed->getArg(1);
  IRBuilder<> builder(&*framed->getEntryBlock().getFirstInsertionPt());
  for (auto [index, argument] : llvm::enumerate(chunk.args()))
    argument.replaceAllUsesWith(builder.CreateLoad(
        argument.getType(),
        builder.CreateStructGEP(argumentsType, arguments, index)));
  SmallVector<ReturnInst *> returns;
  for (BasicBlock &block : *framed)
    if (auto *ret = dyn_cast<ReturnInst>(block.getTerminator()))
      returns.push_back(ret);
  for (ReturnInst *ret : returns) {
    builder.SetInsertPoint(ret);
    Value *value = ret->getReturnValue();
    for (auto [index, field] : llvm::enumerate(fields))
      builder.CreateStore(getField(value, field.path, ret),
                          builder.CreateStructGEP(resultsType, results, index));
    builder.CreateRetVoid();
    ret->eraseFromParent();
    if (value)
      RecursivelyDeleteTriviallyDeadInstructions(value);
  }

  // The call: arguments stored into a frame in the caller's stack, each
  // result field loaded where it is used.
  Function *caller = call->getFunction();
  builder.SetInsertPoint(&*caller->getEntryBlock().getFirstInsertionPt());
  Value *argumentFrame = builder.CreateAlloca(argumentsType);
  Value *resultFrame = fields.empty()
                           ? static_cast<Value *>(PoisonValue::get(pointerType))
                           : builder.CreateAlloca(resultsType);
  builder.SetInsertPoint(call);
  for (auto [index, argument] : llvm::enumerate(call->args()))
    builder.CreateStore(
        argument, builder.CreateStructGEP(argumentsType, argumentFrame, index));
  CallInst *framedCall =
      builder.CreateCall(framed, {argumentFrame, resultFrame});
  framedCall->setCallingConv(call->getCallingConv());
  framedCall->setAttributes(AttributeList::get(
      context, call->getAttributes().getFnAttrs(), AttributeSet(), {}));
  if (aggregateResult) {
    SmallVector<unsigned, 4> path;
    loadExtractedFields(call, path, resultFrame, resultsType, fieldIndex);
  } else if (!resultType->isVoidTy()) {
    builder.SetInsertPoint(call);
    call->replaceAllUsesWith(builder.CreateLoad(
        resultType, builder.CreateStructGEP(resultsType, resultFrame, 0)));
  }
  call->eraseFromParent();
  chunk.eraseFromParent();
  return true;
}

void ChunkFrames::loadExtractedFields(Value *aggregate,
                                      SmallVectorImpl<unsigned> &path,
                                      Value *results, StructType *resultsType,
                                      const FieldIndex &fieldIndex) {
  for (User *user : llvm::make_early_inc_range(aggregate->users())) {
    auto *extract = cast<ExtractValueInst>(user);
    size_t depth = path.size();
    path.append(extract->idx_begin(), extract->idx_end());
    if (extract->getType()->isAggregateType()) {
      loadExtractedFields(extract, path, results, resultsType, fieldIndex);
    } else {
      IRBuilder<> builder(extract);
      extract->replaceAllUsesWith(
          builder.CreateLoad(extract->getType(),
                             builder.CreateStructGEP(
                                 resultsType, results,
                                 fieldIndex.lookup(ArrayRef<unsigned>(path)))));
    }
    path.resize(depth);
    extract->eraseFromParent();
  }
}

void ChunkFrames::splitAggregateStores(Function &function) {
  const DataLayout &layout = module.getDataLayout();
  SmallVector<StoreInst *> stores;
  for (BasicBlock &block : function)
    for (Instruction &instruction : block)
      if (auto *store = dyn_cast<StoreInst>(&instruction))
        if (store->getValueOperand()->getType()->isAggregateType() &&
            store->isSimple())
          stores.push_back(store);
  for (StoreInst *store : stores) {
    Value *value = store->getValueOperand();
    Type *type = value->getType();
    IRBuilder<> builder(store);
    for (const Field &field : getFields(type)) {
      SmallVector<Value *> indices{builder.getInt32(0)};
      for (unsigned index : field.path)
        indices.push_back(builder.getInt32(index));
      uint64_t offset = layout.getIndexedOffsetInType(type, indices);
      builder.CreateAlignedStore(
          getField(value, field.path, store),
          builder.CreateInBoundsGEP(type, store->getPointerOperand(), indices),
          commonAlignment(store->getAlign(), offset));
    }
    store->eraseFromParent();
    RecursivelyDeleteTriviallyDeadInstructions(value);
  }
}

unsigned mpt::passChunkValuesThroughFrames(Module &module) {
  ChunkFrames frames(module);
  unsigned rewritten = 0;
  // Collected first: the rewritten chunks are new functions of the module.
  SmallVector<Function *> chunks;
  for (Function &function : module)
    if (function.hasFnAttribute("mpt-chunk"))
      chunks.push_back(&function);
  for (Function *chunk : chunks)
    if (frames.rewriteChunk(*chunk))
      ++rewritten;
  for (Function &function : module)
    if (!function.isDeclaration())
      frames.splitAggregateStores(function);
  return rewritten;
}
