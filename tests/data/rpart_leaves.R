# Writes rpart's leaf of every record (m$where) for tests/data/rpart_leaves.csv.
# The tables d0.csv ... d3.csv come from test_rpart.py's _reference_table(seed), written
# with float_format="%.17g" so that R reads the same numbers.
library(rpart)
rows <- list()
for (seed in 0:3) {
  d <- read.csv(sprintf("d%d.csv", seed))
  d$y <- factor(d$y)
  for (cp in c(0, 0.01, 0.03, 0.1)) {
    m <- rpart(y ~ x1 + x2 + x3, data = d, method = "class",
               control = rpart.control(cp = cp, minsplit = 20, minbucket = 7, maxdepth = 30,
                                       xval = 0, maxsurrogate = 0, usesurrogate = 0,
                                       maxcompete = 0))
    rows[[length(rows) + 1]] <- data.frame(seed = seed, cp = cp, row = seq_len(nrow(d)) - 1,
                                           rpart_leaf = m$where)
  }
}
write.csv(do.call(rbind, rows), "rpart_leaves.csv", row.names = FALSE)
