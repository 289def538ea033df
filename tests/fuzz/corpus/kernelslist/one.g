# comment

k1.traceg
