MemcpyHtoD,0x00007f2b2d500000,4096
k1.traceg
MemcpyHtoD,0x00007f2b2d502000,128
k2.traceg
