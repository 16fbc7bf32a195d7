//! Netlist → synthesizable Verilog playout engine (issue: FPGA backend).
