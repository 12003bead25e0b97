__aicore__ __attribute__((always_inline)) void runMatmulKernel(__gm__ int64_t* args)
{
    // Unpack arguments
    __gm__ half* a = reinterpret_cast<__gm__ half*>(args[0]);
    __gm__ half* b = reinterpret_cast<__gm__ half*>(args[1]);
    __gm__ float* c = reinterpret_cast<__gm__ float*>(args[2]);

    // Global tensor declarations
    using aShapeDim5 = Shape<1, 1, 1, 64, 64>;
    using aStrideDim5 = Stride<1, 1, 1, 64, 1>;
    using aGlobalType = GlobalTensor<half, aShapeDim5, aStrideDim5>;
    aGlobalType aGlobal(a);

    using bShapeDim5 = Shape<1, 1, 1, 64, 64>;
    using bStrideDim5 = Stride<1, 1, 1, 64, 1>;
    using bGlobalType = GlobalTensor<half, bShapeDim5, bStrideDim5>;
    bGlobalType bGlobal(b);

    using cShapeDim5 = Shape<1, 1, 1, 64, 64>;
    using cStrideDim5 = Stride<1, 1, 1, 64, 1>;
    using cGlobalType = GlobalTensor<float, cShapeDim5, cStrideDim5>;
    cGlobalType cGlobal(c);

    // Tile type definitions and allocations
    using a_matType = Tile<TileType::Mat, half, 64, 64, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
    a_matType a_mat(64, 64);
    TASSIGN(a_mat, 0x0);

    using b_matType = Tile<TileType::Mat, half, 64, 64, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
    b_matType b_mat(64, 64);
    TASSIGN(b_mat, 0x2000);

    using a_leftType = Tile<TileType::Left, half, 64, 64, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 512>;
    a_leftType a_left(64, 64);
    TASSIGN(a_left, 0x0);

    using b_rightType = Tile<TileType::Right, half, 64, 64, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512>;
    b_rightType b_right(64, 64);
    TASSIGN(b_right, 0x0);

    using accType = Tile<TileType::Acc, float, 64, 64, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024>;
    accType acc(64, 64);
    TASSIGN(acc, 0x0);

    using acc2Type = Tile<TileType::Acc, float, 64, 64, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024>;
    acc2Type acc2(64, 64);
    TASSIGN(acc2, 0x0);

    // Function body
    TLOAD(a_mat, aGlobal);
    TLOAD(b_mat, bGlobal);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TMOV(a_left, a_mat);
    TMOV(b_right, b_mat);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    TMATMUL(acc, a_left, b_right);
    acc2 = acc;
    TMATMUL_ACC(acc2, acc2, a_left, b_right);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(cGlobal, acc2);
}
