//! Netlist → WGSL compute shader code generator and wgpu playout runner (issue: GPU backend).
