// SPDX-License-Identifier: MIT
#include "lib/compile/reflection.hpp"

#include <spirv_cross/spirv_cross.hpp>

#include <algorithm>
#include <new>

namespace shaderbake::compile {

namespace {

uint8_t sampler_dim_of(const spirv_cross::SPIRType& type) {
  switch (type.image.dim) {
    case spv::Dim2D: return 1;
    case spv::Dim3D: return 2;
    case spv::DimCube: return 3;
    default: return 0;
  }
}

}  // namespace

Result<Reflection> reflect_spirv(const std::vector<uint32_t>& spirv) {
  try {
    spirv_cross::Compiler compiler(spirv);
    const spirv_cross::ShaderResources resources = compiler.get_shader_resources();
    Reflection out;
    auto binding_of = [&](const spirv_cross::Resource& r, Reflection::Binding::Kind kind) {
      Reflection::Binding b;
      b.set = compiler.get_decoration(r.id, spv::DecorationDescriptorSet);
      b.binding = compiler.get_decoration(r.id, spv::DecorationBinding);
      b.kind = kind;
      b.name = r.name;
      const spirv_cross::SPIRType& type = compiler.get_type(r.type_id);
      if (kind == Reflection::Binding::Kind::sampled_image) b.dim = sampler_dim_of(type);
      else b.size = static_cast<uint32_t>(compiler.get_declared_struct_size(compiler.get_type(r.base_type_id)));
      out.bindings.push_back(std::move(b));
    };
    for (const auto& r : resources.sampled_images) binding_of(r, Reflection::Binding::Kind::sampled_image);
    for (const auto& r : resources.uniform_buffers) binding_of(r, Reflection::Binding::Kind::uniform_buffer);
    for (const auto& r : resources.storage_buffers) binding_of(r, Reflection::Binding::Kind::storage_buffer);
    for (const auto& r : resources.push_constant_buffers)
      out.push_constant_size = static_cast<uint32_t>(compiler.get_declared_struct_size(compiler.get_type(r.base_type_id)));
    auto variables = [&](const spirv_cross::SmallVector<spirv_cross::Resource>& list, std::vector<Reflection::Variable>& into) {
      for (const auto& r : list) {
        Reflection::Variable v;
        v.location = compiler.get_decoration(r.id, spv::DecorationLocation);
        v.components = compiler.get_type(r.type_id).vecsize;
        v.name = r.name;
        into.push_back(std::move(v));
      }
      std::sort(into.begin(), into.end(), [](const auto& a, const auto& b) { return a.location < b.location; });
    };
    variables(resources.stage_inputs, out.inputs);
    variables(resources.stage_outputs, out.outputs);
    std::sort(out.bindings.begin(), out.bindings.end(),
              [](const auto& a, const auto& b) { return a.set != b.set ? a.set < b.set : a.binding < b.binding; });
    return out;
  } catch (const std::bad_alloc&) {
    // Out of memory says nothing about the module: not a toolchain failure that the same input would repeat.
    return Error{ErrorKind::internal, "out_of_memory", "SPIRV-Cross: out of memory", {}};
  } catch (const std::exception& ex) {
    Error e;
    e.kind = ErrorKind::toolchain;
    e.reason = "spirv_reflection_error";
    e.message = std::string("SPIRV-Cross: ") + ex.what();
    return e;
  }
}

std::string spirv_cross_version() { return "SPIRV-Cross " SHADERBAKE_SPIRV_CROSS_VERSION; }

}  // namespace shaderbake::compile
